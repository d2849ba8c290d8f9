package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// sample is a timeline where the service controller hands over from KCM to
// CCM but both run it for five seconds: one mutual-exclusion failure.
func sample() []timeline.Event {
	evs := []timeline.Event{
		{Time: at(0), Source: "observer", Kind: timeline.ObserverStart},
		{Time: at(0), Source: "runner", Kind: timeline.RunStart, Message: "sample migration", Attrs: map[string]string{"controllers": "service-lb-controller,node-route-controller"}},
		{Time: at(1), Source: "runner", Kind: timeline.StepStart, Step: "grant", Index: 1},
		{Time: at(5), Source: "runner", Kind: timeline.StepEnd, Step: "grant", Index: 1, Outcome: timeline.OK},
		{Time: at(0), Source: "lease", Kind: timeline.Lease, Attrs: map[string]string{"lease": "cloud-provider-extraction-migration", "holder": "cp1_a"}},
		{Time: at(30), Source: "lease", Kind: timeline.Lease, Attrs: map[string]string{"lease": "cloud-provider-extraction-migration", "holder": "cp4_b"}},
		{Time: at(58), Source: "runner", Kind: timeline.RunEnd, Outcome: timeline.OK},
		{Time: at(60), Source: "observer", Kind: timeline.ObserverStop},
		{Time: at(0), Source: "nodes", Kind: timeline.NodeAdded, Node: "cp1", Attrs: map[string]string{"providerID": "kind://docker/t/cp1", "taints": "node-role.kubernetes.io/control-plane", "podCIDRs": "10.244.0.0/24", "addresses": "InternalIP=172.18.0.2", "zone": "sim-zone-a"}},
		{Time: at(0), Source: "nodes", Kind: timeline.NodeAdded, Node: "cp4", Attrs: map[string]string{"providerID": "kind://docker/t/cp4", "taints": "node-role.kubernetes.io/control-plane", "podCIDRs": "10.244.1.0/24", "addresses": "InternalIP=172.18.0.5", "zone": "sim-zone-b"}},
		{Time: at(59), Source: "observer", Kind: timeline.Snapshot, Attrs: map[string]string{"services": "", "loadBalancers": "", "routes": "10.244.0.0/24>cp1,10.244.1.0/24>cp4"}},
	}
	for s := 0.0; s <= 60; s += 0.5 {
		kcm := "service-lb-controller,node-route-controller"
		ccm := ""
		if s > 30 {
			kcm = ""
			ccm = "service-lb-controller,node-route-controller"
		}
		if s >= 25 && s <= 30 {
			ccm = "service-lb-controller"
		}
		evs = append(evs,
			timeline.Event{Time: at(s), Source: "health", Kind: timeline.Health, Manager: "kube-controller-manager", Instance: "cp1", Attrs: map[string]string{"up": "true", "controllers": kcm}},
			timeline.Event{Time: at(s), Source: "health", Kind: timeline.Health, Manager: "cloud-controller-manager", Instance: "cp4", Attrs: map[string]string{"up": "true", "controllers": ccm}},
			timeline.Event{Time: at(s), Source: "probe", Kind: timeline.Probe, Attrs: map[string]string{"kind": "api", "target": "endpoint", "ok": "true"}})
		evs = append(evs, observed(s)...)
	}
	return evs
}

// observed is the rest of what the observers see at s: the managers not
// running (up=false), metrics scrapes and each API server's probe, so
// that evidence coverage is complete.
func observed(s float64) []timeline.Event {
	var out []timeline.Event
	for _, in := range [][2]string{{"cloud-controller-manager", "cp1"}, {"kube-controller-manager", "cp4"}} {
		out = append(out, timeline.Event{Time: at(s), Source: "health", Kind: timeline.Health, Manager: in[0], Instance: in[1], Attrs: map[string]string{"up": "false"}})
	}
	for _, in := range [][2]string{{"kube-controller-manager", "cp1"}, {"cloud-controller-manager", "cp1"}, {"kube-controller-manager", "cp4"}, {"cloud-controller-manager", "cp4"}} {
		out = append(out, timeline.Event{Time: at(s), Source: "metrics", Kind: timeline.Metrics, Manager: in[0], Instance: in[1], Attrs: map[string]string{"up": "false"}})
	}
	for _, n := range []string{"cp1", "cp4"} {
		out = append(out, timeline.Event{Time: at(s), Source: "probe", Kind: timeline.Probe, Attrs: map[string]string{"kind": "api", "target": n, "node": n, "ok": "true"}})
	}
	return out
}

func sampleReport() Report {
	evs := sample()
	cfg, err := ConfigFor(evs)
	if err != nil {
		panic(err)
	}
	return New(TitleFor(evs), evs, cfg)
}

func TestSampleHasOneFailure(t *testing.T) {
	r := sampleReport()
	var failed []string
	for _, res := range r.Results {
		if !res.Passed {
			failed = append(failed, res.Check+"/"+res.Subject)
		}
	}
	if strings.Join(failed, " ") != "mutual-exclusion/service-lb-controller" {
		t.Fatalf("failed: %v", failed)
	}
}

func TestJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if got.Failures != 1 || got.Tests < 4 {
		t.Fatalf("tests=%d failures=%d", got.Tests, got.Failures)
	}
	for _, s := range got.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil && (!strings.Contains(c.Failure.Text, "health: kube-controller-manager@cp1 ran it") || !strings.Contains(c.Failure.Text, "sources: health")) {
				t.Errorf("failure without its evidence: %+v", c.Failure)
			}
		}
	}
	validateJUnitSchema(t, buf.Bytes())
}

// A result not judged (its evidence out of the observation's reach) is a
// skipped test case, neither a pass nor a failure.
func TestJUnitSkipsWhatWasNotJudged(t *testing.T) {
	r := sampleReport()
	skipped := 1 // the one appended below, and the sample's own (stale-node: no instance terminated)
	for _, x := range r.Results {
		if x.Skipped != "" {
			skipped++
		}
	}
	r.Results = append(r.Results, checks.Result{Check: checks.LBSingle, Subject: "load balancers", Passed: true,
		Skipped: "the cloud is out of reach", Summary: "not judged: the cloud is out of reach"})
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<skipped message="the cloud is out of reach"></skipped>`) || !strings.Contains(buf.String(), `skipped="1"`) {
		t.Fatalf("no skipped case:\n%s", buf.String())
	}
	validateJUnitSchema(t, buf.Bytes())
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| lb-single | load balancers | skipped |") || !strings.Contains(md.String(), fmt.Sprintf("%d not judged", skipped)) {
		t.Fatalf("summary:\n%s", md.String())
	}
}

func TestMarkdownAndHTML(t *testing.T) {
	r := sampleReport()
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**FAILED**", "| mutual-exclusion | service-lb-controller | **FAIL** |", "sources: health", "| grant | ok |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-lane="service-lb-controller @ KCM"`, `data-lane="service-lb-controller @ CCM"`, `data-lane="lease cloud-provider-extraction-migration"`,
		`data-lane="procedure steps"`, `class="violation"`, ColorKCM, ColorCCM,
		`data-lane="api probes (3 targets)"`, `data-lane="evidence: health (`, `data-lane="evidence: nodes (2)"`, `<details id="probes">`, `data-lane="probe api cp1"`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Count(page.String(), `class="violation"`) != 1 {
		t.Errorf("want exactly one highlighted violation")
	}
	_ = checks.Passed(r.Results)
}

// Targets sort as people count: churn-2 before churn-10.
func TestNaturalOrder(t *testing.T) {
	got := []string{"lb default/churn-10", "lb default/churn-2", "api endpoint", "lb default/churn-1", "lb default/web", "lb default/churn-02x"}
	sort.Slice(got, func(i, j int) bool { return naturalLess(got[i], got[j]) })
	want := "api endpoint|lb default/churn-1|lb default/churn-2|lb default/churn-02x|lb default/churn-10|lb default/web"
	if strings.Join(got, "|") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

// A target's failures count red only between two answers: before its first
// (joining) and after its last (removed) they are drawn grey.
func TestProbeFailuresBetweenAnswersAreRed(t *testing.T) {
	probe := func(s float64, ok bool) timeline.Event {
		o := "false"
		if ok {
			o = "true"
		}
		return timeline.Event{Time: at(s), Kind: timeline.Probe, Attrs: map[string]string{"kind": "api", "target": "cp4", "ok": o}}
	}
	p := &plot{from: at(0), to: at(10)}
	p.targetBars(0, "api cp4", []timeline.Event{probe(1, false), probe(2, true), probe(3, false), probe(4, true), probe(5, false), probe(6, false)})
	out := p.b.String()
	if n := strings.Count(out, colorProbeBad); n != 1 {
		t.Errorf("%d red failures, want the one between answers", n)
	}
	if n := strings.Count(out, colorProbeIdle); n != 3 {
		t.Errorf("%d grey failures, want the one before the first answer and the two after the last", n)
	}
}

// A failed probe's bar lasts until the target's next probe, whatever period
// the observers probed at; the last lasts as long as the one before it.
func TestProbeSpanFollowsTheProbes(t *testing.T) {
	ps := []timeline.Event{{Time: at(1)}, {Time: at(1.5)}, {Time: at(2)}}
	for i, want := range []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond} {
		if got := probeSpan(ps, i); got != want {
			t.Errorf("probeSpan(%d) = %s, want %s", i, got, want)
		}
	}
	if got := probeSpan(ps[:1], 0); got != minProbeSpan {
		t.Errorf("a lone probe spans %s, want %s", got, minProbeSpan)
	}
}

// The thresholds a rehearsal set travel with its timeline; a bad one is an
// error, not a default.
func TestConfigForThresholds(t *testing.T) {
	evs := []timeline.Event{{Kind: timeline.Thresholds, Source: "rehearsal", Attrs: map[string]string{"max-outage": "9s", "min-availability": "95%"}}}
	cfg, err := ConfigFor(evs)
	if err != nil || cfg.MaxOutage != 9*time.Second || cfg.MinAvailability != 0.95 {
		t.Fatalf("%+v %v", cfg, err)
	}
	evs = append(evs, timeline.Event{Kind: timeline.Thresholds, Attrs: map[string]string{"max-gap": "1m25s", "max-gap.basis": "1m25s = lease 1m0s + …"}})
	if cfg, err = ConfigFor(evs); err != nil || cfg.MaxGap != 85*time.Second || cfg.Basis["max-gap"] != "1m25s = lease 1m0s + …" {
		t.Fatalf("a threshold with its basis: %+v %v", cfg, err)
	}
	evs[0].Attrs["max-outage"] = "forever"
	if _, err := ConfigFor(evs); err == nil || !strings.Contains(err.Error(), "max-outage") {
		t.Fatalf("a bad threshold: %v", err)
	}
}

// `report --out` over a directory where someone planted junit.xml as a
// link: the link is replaced, its target untouched.
func TestWriteAllNeverWritesThroughALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, JUnitFile)); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir, Report{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(victim); string(raw) != "precious" {
		t.Fatalf("the report was written through the link: %q", raw)
	}
	if fi, err := os.Lstat(filepath.Join(dir, JUnitFile)); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("junit.xml: %v %v", fi, err)
	}
}

// The reports name the provider code each side ran and the actions it
// called, an unserved one marked.
func TestReportsNameProviderCode(t *testing.T) {
	evs := []timeline.Event{
		{Source: "rehearsal", Kind: timeline.ProviderCode, Attrs: map[string]string{"side": "in-tree", "runs": "kube-controller-manager v1.26.13 and the kubelets", "code": "k8s.io/legacy-cloud-providers/aws@v0.26.13", "api": "aws"}},
		{Source: "rehearsal", Kind: timeline.ProviderCode, Attrs: map[string]string{"side": "external", "runs": "cloud-controller-manager v1.27.4", "code": "k8s.io/cloud-provider-aws@v1.27.2", "api": "aws"}},
		{Source: "cloud-audit", Kind: timeline.CloudAPIAction, Attrs: map[string]string{"service": "ec2", "action": "DescribeInstances", "calls": "40", "refused": "0"}},
		{Source: "cloud-audit", Kind: timeline.CloudAPIAction, Attrs: map[string]string{"service": "ec2", "action": "DescribeVolumes", "calls": "2", "refused": "2", "unimplemented": "true"}},
	}
	r := Report{Title: "t", Events: evs}
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Provider code", "| external | cloud-controller-manager v1.27.4 | k8s.io/cloud-provider-aws@v1.27.2 |",
		"## Cloud API actions called", "| ec2:DescribeInstances | 40 | 0 | yes |", "| ec2:DescribeVolumes | 2 | 2 | NO |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<td>k8s.io/legacy-cloud-providers/aws@v0.26.13</td>") || !strings.Contains(page.String(), "<td>ec2:DescribeVolumes</td>") {
		t.Errorf("the page lacks the provider tables")
	}
}
