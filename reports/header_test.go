package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

var update = flag.Bool("update", false, "rewrite the golden headers")

const (
	svc   = "service-lb-controller"
	route = "node-route-controller"
)

// fixture says how the sample migration went: whether the CCM ran the
// service controller while the KCM still did (25 – 30 s), how long the
// route controller ran nowhere after the KCM let go at 30 s (against a
// max-gap of 5 s), whether a worker stayed without a ProviderID, and
// whether the observers were blind (no health, metrics, probe, Node or
// end snapshot).
type fixture struct {
	overlap  bool
	routeGap float64
	orphan   bool
	blind    bool
}

func (f fixture) events() []timeline.Event {
	evs := []timeline.Event{{Time: at(0), Source: "rehearsal", Kind: timeline.Thresholds, Attrs: map[string]string{"max-gap": "5s"}}}
	for _, e := range sample() {
		switch {
		case e.Kind == timeline.Health || e.Kind == timeline.Metrics || e.Kind == timeline.Probe:
		case f.blind && (e.Kind == timeline.NodeAdded || e.Kind == timeline.Snapshot):
		default:
			evs = append(evs, e)
		}
	}
	if f.blind {
		return evs
	}
	for s := 0.0; s <= 60; s += 0.5 {
		evs = append(evs, f.health(s)...)
		evs = append(evs, timeline.Event{Time: at(s), Source: "probe", Kind: timeline.Probe, Attrs: map[string]string{"kind": "api", "target": "endpoint", "ok": "true"}})
		evs = append(evs, observed(s)...)
	}
	if f.orphan {
		evs = append(evs, timeline.Event{Time: at(0), Source: "nodes", Kind: timeline.NodeAdded, Node: "w1",
			Attrs: map[string]string{"taints": "", "addresses": "InternalIP=172.18.0.7"}})
	}
	return evs
}

// health is what the managers' /healthz said at s.
func (f fixture) health(s float64) []timeline.Event {
	var kcm, ccm []string
	switch {
	case s <= 30:
		kcm = []string{svc, route}
	case s <= 30+f.routeGap:
		ccm = []string{svc}
	default:
		ccm = []string{svc, route}
	}
	if f.overlap && s >= 25 && s <= 30 {
		ccm = []string{svc}
	}
	return []timeline.Event{
		{Time: at(s), Source: "health", Kind: timeline.Health, Manager: "kube-controller-manager", Instance: "cp1", Attrs: map[string]string{"up": "true", "controllers": strings.Join(kcm, ",")}},
		{Time: at(s), Source: "health", Kind: timeline.Health, Manager: "cloud-controller-manager", Instance: "cp4", Attrs: map[string]string{"up": "true", "controllers": strings.Join(ccm, ",")}},
	}
}

func (f fixture) report(t *testing.T) Report {
	t.Helper()
	evs := f.events()
	cfg, err := ConfigFor(evs)
	if err != nil {
		t.Fatal(err)
	}
	return New(TitleFor(evs), evs, cfg)
}

var headerCases = map[string]fixture{
	"green": {},
	"red":   {overlap: true, routeGap: 8, orphan: true},
	"blind": {blind: true},
}

// The summary and the page open with the answers, then what failed, was
// unproven or not judged: held to goldens (go test ./reports -run
// TestHeaderGolden -update writes them; review the diff).
func TestHeaderGolden(t *testing.T) {
	for name, f := range headerCases {
		t.Run(name, func(t *testing.T) {
			r := f.report(t)
			var md bytes.Buffer
			if err := WriteMarkdown(&md, r); err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(md.String(), "| check | subject |")
			matchGolden(t, name+".md", head)
			page, err := headerOf(r.Results, anchors(r.Results)).html()
			if err != nil {
				t.Fatal(err)
			}
			matchGolden(t, name+".html", page)
		})
	}
}

// matchGolden compares got with testdata/header/NAME.golden (-update
// writes it).
func matchGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "header", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -run TestHeaderGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (rerun with -update after checking the change):\n%s", name, path, got)
	}
}

// headlines are the answers as "Question: headline", by question.
func headlines(rs []checks.Result) map[string]answer {
	out := map[string]answer{}
	for _, a := range answers(rs) {
		out[a.Question] = a
	}
	return out
}

func TestGreenRunAnswersHeld(t *testing.T) {
	as := headlines(fixture{}.report(t).Results)
	for q, want := range map[string]string{"Mutual exclusion": "held", "Longest coverage gap": "0s, within the 5s threshold",
		"ProviderIDs": "2 of 2 nodes", "API availability": "every request answered", "Load-balancer availability": "nothing to measure"} {
		if a := as[q]; a.Headline != want || a.Standing != answered {
			t.Errorf("%s: %+v, want %q, answered", q, a, want)
		}
	}
}

func TestRedRunAnswersBroken(t *testing.T) {
	r := fixture{overlap: true, routeGap: 8, orphan: true}.report(t)
	as := headlines(r.Results)
	for q, want := range map[string]string{"Mutual exclusion": "NOT held", "Longest coverage gap": "7.5s, OVER the 5s threshold", "ProviderIDs": "2 of 3 nodes"} {
		if a := as[q]; a.Headline != want || a.Standing != broken {
			t.Errorf("%s: %+v, want %q, broken", q, a, want)
		}
	}
	if d := as["Mutual exclusion"].Detail; !strings.Contains(d, svc+" for 5s (1 overlap)") {
		t.Errorf("the overlap is not said with its length: %q", d)
	}
	if d := as["ProviderIDs"].Detail; !strings.Contains(d, "w1: has no ProviderID at the end") {
		t.Errorf("the node without one is not named: %q", d)
	}
	h := headerOf(r.Results, anchors(r.Results))
	for _, p := range h.Failed {
		if p.Anchor == "" {
			t.Errorf("%s leads to no evidence", p.Name)
		}
	}
}

// A run whose checks lacked evidence answers nothing: each answer says
// not judged, and why, never held.
func TestBlindRunAnswersNotJudged(t *testing.T) {
	r := fixture{blind: true}.report(t)
	for _, a := range answers(r.Results) {
		if a.Standing != notJudged || a.Headline != "not judged" || !strings.HasPrefix(a.Detail, "unproven, which fails the run: too little evidence on ") {
			t.Errorf("%+v, want not judged: unproven", a)
		}
	}
	if h := headerOf(r.Results, anchors(r.Results)); len(h.Unproven) == 0 || len(h.Failed) == 0 {
		t.Errorf("unproven %v and failed (the blind evidence) %v, want both", h.Unproven, h.Failed)
	}
}

// A run that stopped before its checks answers nothing either.
func TestStoppedRunAnswersNotJudged(t *testing.T) {
	r := Stopped("t", "images", os.ErrNotExist, at(0), at(1), About{})
	for _, a := range answers(r.Results) {
		if a.Standing != notJudged || !strings.HasSuffix(a.Detail, "check did not run") {
			t.Errorf("%+v, want not judged: did not run", a)
		}
	}
}

// What held where seen is not said to hold where the evidence it relies
// on has holes, or where some subjects were not judged.
func TestHeldOnlyWhereSeen(t *testing.T) {
	exclusion := checks.Result{Check: checks.MutualExclusion, Subject: svc, Passed: true}
	hole := checks.Result{Check: checks.Evidence, Subject: "health", Violations: []checks.Violation{{Sources: []string{"health"}, Message: "a hole"}}}
	if a := exclusionAnswer([]checks.Result{exclusion, hole}); a.Standing != notJudged || a.Headline != "not judged: held where seen" || !strings.Contains(a.Detail, "the health evidence has holes") {
		t.Errorf("held over a hole in the health evidence: %+v", a)
	}
	skipped := checks.Result{Check: checks.MutualExclusion, Subject: route, Passed: true, Skipped: "out of reach"}
	if a := exclusionAnswer([]checks.Result{exclusion, skipped}); a.Standing != notJudged || !strings.Contains(a.Detail, "not judged on "+route+" (out of reach)") {
		t.Errorf("held with a controller not judged: %+v", a)
	}
}

// A load balancer that never answered before the end is not judged, not
// counted among those measured.
func TestYoungLoadBalancerNotJudged(t *testing.T) {
	lb := func(subject string, m map[string]float64) checks.Result {
		return checks.Result{Check: checks.LBAvailability, Subject: subject, Passed: true, Metrics: m}
	}
	web := lb("default/web", map[string]float64{"availability": 0.995, "requests": 200, "longest_outage_seconds": 1, "min_availability": 0.99, "max_outage_seconds": 5})
	young := lb("default/new", map[string]float64{"requests": 3})
	a := answers([]checks.Result{web, young})[4]
	if a.Headline != "not judged: 99.50 % at worst (default/web), longest outage 1s (default/web) where seen" || !strings.Contains(a.Detail, "not judged on default/new (none answered yet as observation ended)") {
		t.Errorf("%+v", a)
	}
	if a := answers([]checks.Result{young})[4]; a.Standing != notJudged || a.Headline != "not judged" {
		t.Errorf("only a young one: %+v", a)
	}
}

// Unproven, failed and not judged are counted apart, and what was not
// judged is grouped by its reason.
func TestCountsAndReasons(t *testing.T) {
	rs := []checks.Result{
		{Check: "a", Subject: "x", Violations: []checks.Violation{{Sources: []string{checks.Evidence}, Message: "unproven: none"}}},
		{Check: "a", Subject: "y", Violations: []checks.Violation{{Sources: []string{"health"}, Message: "seen"}}},
		{Check: "b", Subject: "n1", Passed: true, Skipped: "joined"},
		{Check: "b", Subject: "n2", Passed: true, Skipped: "joined"},
		{Check: "c", Subject: "n1", Passed: true, Skipped: "joined"},
	}
	if got := counts(rs); got != "5 checks, 1 failed, 1 unproven, 3 not judged" {
		t.Errorf("counts %q", got)
	}
	groups, n := unjudgedOf(rs)
	if n != 3 || len(groups) != 2 || groups[0].Names() != "2 subjects (n1, n2)" || groups[1].Names() != "n1" {
		t.Errorf("%d in %+v", n, groups)
	}
}

func TestAnchorsAreStableAndUnique(t *testing.T) {
	rs := []checks.Result{{Check: checks.LBAvailability, Subject: "handover-load/churn-0"}, {Check: "x", Subject: "A b"}, {Check: "x", Subject: "a-b"}}
	got := strings.Join(anchors(rs), " ")
	if got != "lb-availability-handover-load-churn-0 x-a-b x-a-b-2" {
		t.Errorf("anchors %q", got)
	}
}

// Every link of the header leads to an evidence section of the same
// document, in the summary and on the page.
func TestHeaderLinksReachTheirEvidence(t *testing.T) {
	for name, f := range headerCases {
		r := f.report(t)
		var md, page bytes.Buffer
		if err := WriteMarkdown(&md, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(&page, r); err != nil {
			t.Fatal(err)
		}
		h, links := headerOf(r.Results, anchors(r.Results)), 0
		for _, p := range append(h.Failed, h.Unproven...) {
			links++
			if !strings.Contains(md.String(), "(#"+p.Anchor+")") || !strings.Contains(md.String(), `### <a id="`+p.Anchor+`"></a>`+p.Name+"\n") {
				t.Errorf("%s: summary: %s has no link or no section %q", name, p.Name, p.Anchor)
			}
			if !strings.Contains(page.String(), `<a href="#`+p.Anchor+`">`) || !strings.Contains(page.String(), `<h3 id="`+p.Anchor+`">`) {
				t.Errorf("%s: page: %s has no link or no section %q", name, p.Name, p.Anchor)
			}
		}
		if name != "green" && links == 0 {
			t.Errorf("%s: no link", name)
		}
	}
}

// Failures the share left out (a removed node still in service by its
// load balancer's health check) are said, and never read as every
// request answered.
func TestExcusedFailuresAreSaid(t *testing.T) {
	web := checks.Result{Check: checks.LBAvailability, Subject: "default/web", Passed: true,
		Metrics: map[string]float64{"availability": 1, "requests": 200, "excused": 12, "longest_outage_seconds": 0, "min_availability": 0.99, "max_outage_seconds": 5}}
	a := answers([]checks.Result{web})[4]
	if a.Headline == "every request answered" || !strings.Contains(a.Detail, "12 failed while a removed node was still in service") {
		t.Errorf("%+v", a)
	}
}
