package suites_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/selfusage"
	"github.com/handover-sh/handover/verify/checks"
	"github.com/handover-sh/handover/verify/scalestat"
)

// scaleSizes are the fleets the scale suite rehearses: simulated nodes and
// LoadBalancer Services on them.
var scaleSizes = []struct{ nodes, services int }{{100, 25}, {250, 50}, {500, 100}}

const scaleHeader = "| nodes | Services | in-tree kubelet: to initialised p50 / p90 / max (nodes) | CCM: to initialised p50 / p90 / max (nodes) | never initialised | cloud calls CCM / KCM (throttled) | load balancers after the hand-off | longest coverage gap | timeline events | handover | checks |\n|---|---|---|---|---|---|---|---|---|---|---|\n"

var scaleTable = &table{path: "scale/figures.md", header: scaleHeader}

// The scale suite: the task doc on 2 control planes and a worker beside a
// simulated fleet of each size, the cloud throttled per caller, nodes
// joining throughout. Every check must pass; each spec adds its figures to
// _output/suites/scale/figures.md.
var _ = Describe("scale", Label("scale"), func() {
	for _, size := range scaleSizes {
		It(fmt.Sprintf("migrates beside %d simulated nodes and %d Services with every check green", size.nodes, size.services), func(ctx context.Context) {
			c := rehearsal.Default()
			c.ControlPlanes, c.Workers, c.Load = 2, 1, "light"
			c.Scale.Nodes, c.Scale.Services = size.nodes, &size.services
			c.ObserveAfter = "2m" // the new leader's resync of every load balancer
			name := fmt.Sprintf("scale-%d", size.nodes)
			res, err := run(ctx, name, "scale/"+name, c)
			Expect(res.Report).NotTo(BeNil(), "stopped before its checks: %v", err)
			s, ok := scalestat.Summarize(res.Report.Events)
			Expect(ok).To(BeTrue(), "no scale figures in %s", res.Dir)
			row := scaleRow(s, res)
			AddReportEntry("figures", row)
			scaleTable.append(row)
			Expect(err).NotTo(HaveOccurred(), "reports in %s", res.Dir)
			Expect(res.Fleet.Registered).To(Equal(size.nodes))
			Expect(res.Fleet.Joined).To(BeNumerically(">", 0), "no node joined during the procedure")
			Expect(s.Fleet).To(HaveLen(res.Fleet.Registered+res.Fleet.Joined), "simulated nodes the observers did not see join")
			Expect(s.Reconcile.HandOff.IsZero()).To(BeFalse(), "the hand-off to the cloud-controller-manager's service controller was not seen")
		}, NodeTimeout(60*time.Minute))
	}
})

func scaleRow(s scalestat.Summary, res *rehearsal.Result) string {
	init := map[string]string{}
	unfinished := 0
	for _, l := range s.Latencies {
		init[l.Mode] = fmt.Sprintf("%s (%d)", spreadCell(l.Initialised), l.Nodes)
		unfinished += l.Unfinished
	}
	var calls []string
	for _, c := range s.Calls {
		calls = append(calls, fmt.Sprintf("%d (%d)", c.Total, c.Throttled))
	}
	lbs := "not measured"
	if r := s.Reconcile; !r.HandOff.IsZero() {
		lbs = fmt.Sprintf("%d of %d within %s", r.Done, r.LBs, r.All.Round(time.Second))
	}
	cpu := "–"
	if u, ok := selfusage.Summarize(res.Report.Events); ok {
		cpu = u.String()
	}
	failed, gap := 0, time.Duration(0)
	for _, r := range res.Report.Results {
		if !r.Passed {
			failed++
		}
		if r.Check == checks.CoverageGap {
			gap = max(gap, time.Duration(r.Metrics["longest_gap_seconds"]*float64(time.Second)))
		}
	}
	return fmt.Sprintf("| %d | %d | %s | %s | %d | %s | %s | %s | %d | %s | %d of %d failed |", s.Nodes, s.Services, orDash(init[scalestat.InTree]),
		orDash(init[scalestat.External]), unfinished, strings.Join(calls, " / "), lbs, gap.Round(100*time.Millisecond), len(res.Report.Events), cpu, failed, len(res.Report.Results))
}

func spreadCell(s scalestat.Spread) string {
	r := func(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
	return r(s.P50) + " / " + r(s.P90) + " / " + r(s.Max)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
