package suites_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/simulate/faults"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// The negative catalog: the task doc done wrong on purpose, run for real
// with the lint bypassed; each case must be flagged by the check named,
// with evidence in the JUnit failure text.
var _ = Describe("bad migrations are caught", Label("negative"), func() {
	// The same procedure on the same cluster shape, done right: no check
	// fires, so what fires below is the mistake's doing.
	It("0: the same procedure done right fires nothing", func(ctx context.Context) {
		c := negativeConfig()
		c.Force = false
		rehearse(ctx, "negative-clean", c)
	}, NodeTimeout(30*time.Minute))

	DescribeTable("the expected check fires",
		func(ctx context.Context, name string, edit func(*rehearsal.Config), wants ...string) {
			c := negativeConfig()
			edit(&c)
			res := negative(ctx, name, c)
			junit, err := os.ReadFile(filepath.Join(res.Dir, reports.JUnitFile))
			Expect(err).NotTo(HaveOccurred())
			for _, want := range wants {
				Expect(failed(res, want)).NotTo(BeEmpty(), "%s did not fire; reports in %s", want, res.Dir)
				for _, r := range failed(res, want) {
					Expect(string(junit)).To(ContainSubstring(xmlText(r.Violations[0].Message)))
				}
			}
		},
		Entry("1: CCM without leader migration while KCM runs the cloud loops", "ccm-without-lm", mistake(migrate.MistakeCCMWithoutLM), checks.MutualExclusion, NodeTimeout(30*time.Minute)),
		Entry("2: no lease RBAC for the CCM", "no-lease-rbac", mistake(migrate.MistakeNoLeaseRBAC), checks.CoverageGap, NodeTimeout(30*time.Minute)),
		// The N+1 kube-controller-manager runs no cloud controller but
		// competes for the migration lease: harmless until the
		// cloud-controller-manager's leader goes away (killed here after the
		// procedure, as a crash or a rollout would), when it takes the lease
		// and keeps it, and no manager runs the cloud controllers again.
		Entry("3: N+1 KCM keeps leader migration, then the CCM leader restarts", "n1-kcm-lm", func(c *rehearsal.Config) {
			mistake(migrate.MistakeN1KCMWithLM)(c)
			c.Faults.Name, c.Faults.Step = faults.LeaderKill, faults.AfterProcedure
		}, checks.CoverageGap, NodeTimeout(30*time.Minute)),
		Entry("4: external kubelets and no CCM", "no-ccm", mistake(migrate.MistakeNoCCM), checks.ProviderID, NodeTimeout(30*time.Minute)),
		Entry("5: leaderName differs", "leader-name-differs", mistake(migrate.MistakeLeaderNameDiffers), checks.MutualExclusion, NodeTimeout(30*time.Minute)),
		Entry("6: CCM config gives the controllers to KCM", "component-typo", mistake(migrate.MistakeComponentTypo), checks.CoverageGap, NodeTimeout(30*time.Minute)),
		Entry("8: a Node re-registered with another ProviderID", "node-reregister", fault(faults.NodeReregister), checks.ProviderID, NodeTimeout(30*time.Minute)),
		// The CCM names load balancers after another cluster: at the
		// hand-off it makes a second one for every live Service and moves
		// the Service's address to it.
		// It shows only once the CCM's service controller resyncs after the
		// hand-off, which is the procedure's last act: observe a minute more.
		Entry("9: CCM with another --cluster-name", "cluster-name", func(c *rehearsal.Config) {
			mistake(migrate.MistakeClusterNameDiffers)(c)
			c.ObserveAfter = "1m"
		}, checks.LBSingle, checks.LBIngress, NodeTimeout(30*time.Minute)),
		// The task doc's two files as printed, with the short names
		// route, service and cloud-node-lifecycle: the managers' filter
		// matches none of them, so each manager runs all three on its main
		// lease (examples/taskdoc-canonical is the same, done right).
		Entry("10: the task doc's configurations verbatim", "taskdoc-verbatim", func(c *rehearsal.Config) {
			c.LeaderMigration = map[string]string{"kcm": "../examples/taskdoc-verbatim/kcm.yaml", "ccm": "../examples/taskdoc-verbatim/ccm.yaml"}
		}, checks.MutualExclusion, NodeTimeout(30*time.Minute)),
		// The CCM is handed cloud-node-lifecycle but started without it: the
		// worker whose instance the load terminates after the hand-off keeps
		// its Node (moderate load: it joins workers and terminates one).
		Entry("11: CCM without the node-lifecycle controller it is handed", "ccm-no-lifecycle", func(c *rehearsal.Config) {
			mistake(migrate.MistakeCCMNoNodeLifecycle)(c)
			c.Load = "moderate"
		}, checks.StaleNode, checks.CoverageGap, NodeTimeout(30*time.Minute)),
		// The same with the route controller: the terminated worker's route
		// stays in the cloud after its Node went, and a worker joining after
		// the hand-off gets none.
		Entry("12: CCM without the route controller it is handed", "ccm-no-routes", func(c *rehearsal.Config) {
			mistake(migrate.MistakeCCMNoRoutes)(c)
			c.Load = "moderate"
		}, checks.RouteTable, checks.CoverageGap, NodeTimeout(30*time.Minute)),
		// Scoped credentials: the CCM runs the route controller but the
		// cloud refuses it every route change (403) from the hand-off on.
		Entry("13: the CCM's credentials lack the route permissions", "ccm-denied-routes", func(c *rehearsal.Config) {
			fault(faults.CCMDeniedRoutes)(c)
			c.Load = "moderate"
		}, checks.RouteTable, NodeTimeout(30*time.Minute)),
		// Scoped credentials: from the hand-off the CCM sees another region
		// and finds none of the cluster's instances. The control planes
		// that join after it stay uninitialised, without a ProviderID, and
		// the worker joined after it — NotReady while it joins — is taken
		// for gone by the CCM's cloud-node-lifecycle controller and its Node
		// deleted (kubernetes/cloud-provider-gcp#758); the cloud audit shows
		// the look-ups answered 404 (moderate load: a worker joins after the
		// hand-off).
		Entry("14: the CCM's credentials see another region", "ccm-other-region", func(c *rehearsal.Config) {
			fault(faults.CCMOtherRegion)(c)
			c.Load = "moderate"
		}, checks.ProviderID, checks.Uninitialized, checks.NodeDeletion, NodeTimeout(30*time.Minute)),
		// The simulated cloud's form of case 19 (suites/aws_test.go): the
		// N+1 kubelets have neither the plugin nor, once the in-tree gates
		// are dropped, the in-tree provider; the registry refuses them. On
		// the default shape: at 2 + 1 the procedure can end before a round
		// of pulls reaches an N+1 control plane.
		Entry("19: version-N+1 kubelets without the image credential provider", "n1-no-credentials", func(c *rehearsal.Config) {
			mistake(migrate.MistakeN1NoCredentials)(c)
			d := rehearsal.Default()
			c.ControlPlanes, c.Workers, c.Load = d.ControlPlanes, d.Workers, d.Load
		}, checks.ImagePulls, NodeTimeout(30*time.Minute)),
	)

	// Case 7 has no wrong answer ahead of time: a Service deleted during the
	// hand-off either leaks or recreates its load balancer, or Kubernetes
	// handles it; the spec records which, with the evidence. The Service
	// goes 15 s after the last version-N control plane (the leases'
	// holder) starts being removed: after its managers stop, before the
	// migration lease expires, when no manager runs service-lb-controller.
	It("7: a LoadBalancer Service deleted during the hand-off", func(ctx context.Context) {
		c := negativeConfig()
		c.Faults.Name, c.Faults.Step, c.Faults.Delay = faults.ServiceDelete, fmt.Sprintf("remove-n-control-plane-%d", c.ControlPlanes), "15s"
		res := negative(ctx, "service-delete", c)
		AddReportEntry("load balancer deleted by", lbDeletedBy(res))
		if fs := failed(res, checks.LBIdentity); len(fs) > 0 {
			AddReportEntry("outcome", "lb-identity fired: "+fs[0].Violations[0].Message)
			return
		}
		Expect(res.Report.Passed()).To(BeTrue(), "something else failed; reports in %s", res.Dir)
		AddReportEntry("outcome", "handled cleanly: every check passed, the load balancer went with its Service")
	}, NodeTimeout(30*time.Minute))
})

// negativeConfig is the negative cases' shape: the task doc on 2 control
// planes and a worker under light load, the lint bypassed.
func negativeConfig() rehearsal.Config {
	c := rehearsal.Default()
	c.ControlPlanes, c.Workers, c.Load, c.Force = 2, 1, "light", true
	return c
}

func mistake(m string) func(*rehearsal.Config) { return func(c *rehearsal.Config) { c.Mistake = m } }

func fault(f string) func(*rehearsal.Config) { return func(c *rehearsal.Config) { c.Faults.Name = f } }

// negative runs a rehearsal expected to fail its checks: a run error or a
// failed check is no reason to stop, a missing report is.
func negative(ctx context.Context, name string, c rehearsal.Config) *rehearsal.Result {
	res, err := run(ctx, "neg-"+name, "negative/"+name, c)
	if err != nil && !errors.Is(err, rehearsal.ErrChecksFailed) {
		AddReportEntry("run", err.Error())
	}
	Expect(res.Report).NotTo(BeNil(), "the rehearsal stopped before its checks: %v", err)
	return res
}

// lbDeletedBy says which manager deleted the load balancer of the Service
// the fault deleted, and when, from the timeline.
func lbDeletedBy(res *rehearsal.Result) string {
	events, err := timeline.ReadFile(filepath.Join(res.Dir, "timeline.jsonl"))
	Expect(err).NotTo(HaveOccurred())
	var service, lb string
	var deleted time.Time
	for _, e := range events {
		if e.Kind == timeline.FaultStart && service == "" {
			service, deleted = e.Attrs["target"], e.Time
		}
	}
	for _, e := range events {
		if e.Kind == timeline.LBDeleted && service != "" && e.Attrs["service"] == service {
			lb = e.Attrs["name"]
		}
	}
	for _, e := range events {
		if e.Kind == timeline.CloudCall && lb != "" && e.Attrs["resource"] == lb && e.Attrs["operation"] == "DeleteLoadBalancer" {
			return fmt.Sprintf("%s (%s), %.1fs after the Service was deleted", e.Manager, e.Controller, e.Time.Sub(deleted).Seconds())
		}
	}
	return fmt.Sprintf("no manager: Service %q, load balancer %q", service, lb)
}

func failed(res *rehearsal.Result, check string) []checks.Result {
	var out []checks.Result
	for _, r := range res.Report.Results {
		if r.Check == check && !r.Passed && len(r.Violations) > 0 && strings.TrimSpace(r.Violations[0].Message) != "" {
			out = append(out, r)
		}
	}
	return out
}

// xmlText is s as the JUnit report's XML carries it (a kubelet's message
// quotes the image).
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
