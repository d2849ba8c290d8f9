package checks

import (
	"maps"
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

// fixedWindow is window() as a cluster observed from its kubeconfig
// declares it: the managers it was given.
func fixedWindow(managers string) []timeline.Event {
	w := window(0, 60)
	w[0].Attrs = map[string]string{timeline.FixedManagers: managers}
	return w
}

// foreignProcedure is procedure() observed from outside: no API server
// probed but the endpoint.
func foreignProcedure(managers string) []timeline.Event {
	var out []timeline.Event
	for _, e := range procedure() {
		if e.Kind == timeline.ObserverStart || e.Kind == timeline.ObserverStop {
			continue
		}
		out = append(out, e)
	}
	return join(fixedWindow(managers), out)
}

func managedWrite(sec float64, mgr string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "managed-fields", Kind: timeline.ManagedWrite, Manager: mgr, Controller: svc,
		Attrs: map[string]string{"resource": "services/status", "name": "default/web"}}
}

func TestEvidenceHoldsTheGivenManagersToAccount(t *testing.T) {
	given := "cloud-controller-manager@cp-1,kube-controller-manager@cp-1"
	evs := join(foreignProcedure(given), runsFor(0, 30, kcm, "cp-1", svc), runsFor(30.5, 60, kcm, "cp-1"),
		downFor(0, 30, ccm, "cp-1"), runsFor(30.5, 60, ccm, "cp-1", svc),
		metricsFor(0, 60, kcm, "cp-1"), metricsFor(0, 60, ccm, "cp-1"))
	rs := CheckEvidence(evs, cfg)
	for _, name := range []string{"health", "metrics", "api probes"} {
		if r := one(t, rs, name); !r.Passed {
			t.Fatalf("%s: %+v (only the given managers and the endpoint are owed)", name, r)
		}
	}
	// A given manager falls silent for 20 s: blind.
	r := one(t, CheckEvidence(without(evs, timeline.Health, ccm, "cp-1", 20, 40), cfg), "health")
	if r.Passed || !strings.Contains(r.Violations[0].Message, "cloud-controller-manager@cp-1") {
		t.Fatalf("a silent given manager passed: %+v", r)
	}
}

// One kind of manager given: the other could run a controller unseen.
func TestOneManagerGivenProvesNoExclusion(t *testing.T) {
	evs := join(foreignProcedure("kube-controller-manager@cp-1"), runsFor(0, 30, kcm, "cp-1", svc), runsFor(30.5, 60, kcm, "cp-1"),
		metricsFor(0, 60, kcm, "cp-1"))
	r := one(t, CheckMutualExclusion(evs, cfg), svc)
	if r.Passed || !r.Unproven() || !strings.Contains(r.Violations[0].Message, "only kube-controller-manager was sampled") {
		t.Fatalf("one manager given: %+v", r)
	}
}

// The manager not sampled had no pod in kube-system the whole time, where
// the sampled one's pods were seen: it ran nothing, and exclusion is proven
// from the API. A pod of it at any moment, no record of the managers'
// pods, or managers that do not run as pods here leave it unproven.
func TestAbsentManagerPodsProveExclusion(t *testing.T) {
	pods := func(sec float64, mgr, list string) timeline.Event {
		return timeline.Event{Time: at(sec), Source: "pods", Kind: timeline.ManagerPods, Manager: mgr, Attrs: map[string]string{"pods": list}}
	}
	base := join(foreignProcedure("kube-controller-manager@cp-1"), runsFor(0, 60, kcm, "cp-1", svc), metricsFor(0, 60, kcm, "cp-1"))
	quiet := join(base, []timeline.Event{pods(0.1, kcm, "cp-1/kube-controller-manager-cp-1"), pods(0.1, ccm, "")})
	r := one(t, CheckMutualExclusion(quiet, cfg), svc)
	if !r.Passed || !strings.Contains(r.Summary, "proven from the API that cloud-controller-manager never ran") {
		t.Fatalf("no CCM pod while observed: %+v", r)
	}
	for name, evs := range map[string][]timeline.Event{
		"a CCM pod for a while":    join(quiet, []timeline.Event{pods(20, ccm, "cp-1/ccm-x"), pods(25, ccm, "")}),
		"no pods recorded":         base,
		"managers not run as pods": join(base, []timeline.Event{pods(0.1, kcm, ""), pods(0.1, ccm, "")}),
	} {
		if r := one(t, CheckMutualExclusion(evs, cfg), svc); r.Passed || !r.Unproven() {
			t.Errorf("%s: want unproven, got %+v", name, r)
		}
	}
}

// Writes read off managedFields carry whole seconds: two managers' in one
// second are in no known order and make no interleaving.
func TestSameSecondWritesAreUnordered(t *testing.T) {
	evs := join(foreignProcedure(""), []timeline.Event{managedWrite(20, kcm), managedWrite(20, ccm), managedWrite(25, kcm)})
	if r := one(t, CheckMutualExclusion(evs, cfg), svc); !r.Unproven() {
		t.Fatalf("same-second writes taken as an interleaving: %+v", r)
	}
}

func TestAPIOnlyEvidenceProvesOverlapsNeverTheirAbsence(t *testing.T) {
	evs := foreignProcedure("")
	for _, name := range []string{"health", "metrics"} {
		if r := one(t, CheckEvidence(evs, cfg), name); !r.Passed || r.Skipped == "" {
			t.Fatalf("%s with no manager given: %+v", name, r)
		}
	}
	// Nothing seen: mutual exclusion is unproven, not passed.
	if r := one(t, CheckMutualExclusion(evs, cfg), svc); r.Passed {
		t.Fatalf("mutual exclusion passed on API-only evidence showing nothing: %+v", r)
	}
	// Writes read off managedFields interleave: red, from that evidence.
	double := join(evs, []timeline.Event{managedWrite(20, kcm), managedWrite(22, ccm), managedWrite(25, kcm)})
	r := one(t, CheckMutualExclusion(double, cfg), svc)
	if r.Passed || len(r.Violations) != 1 || r.Violations[0].Sources[0] != "managed-fields" {
		t.Fatalf("interleaved managed writes: %+v", r)
	}
}

// Without the cloud's side, what only the cloud can tell is not judged when
// the observation said so at its start, and unproven when it did not.
func TestWithoutTheCloudItsChecksSaySo(t *testing.T) {
	deleted := node(30, timeline.NodeDeleted, "w1", "")
	delete(deleted.Attrs, "instance")
	// procedure()'s snapshot lists the cloud's load balancers ("": none);
	// one taken without the cloud has no such list.
	var noCloud []timeline.Event
	for _, e := range join(procedure(), []timeline.Event{deleted}) {
		if e.Kind == timeline.Snapshot {
			e.Attrs = map[string]string{"services": ""}
		}
		noCloud = append(noCloud, e)
	}
	for _, r := range []Result{one(t, CheckNodeDeletion(noCloud, cfg), "w1"), one(t, CheckLBIdentity(noCloud, cfg), "no leaked load balancers"),
		one(t, CheckLBSingle(noCloud, cfg), "load balancers")} {
		if r.Passed || !r.Unproven() {
			t.Errorf("%s judged without the cloud's evidence: %+v", r.Check, r)
		}
	}
	declared := append([]timeline.Event(nil), noCloud...)
	for i, e := range declared {
		if e.Kind == timeline.ObserverStart {
			declared[i].Attrs = map[string]string{timeline.CloudOutOfReach: "true"}
		}
	}
	for _, r := range []Result{one(t, CheckNodeDeletion(declared, cfg), "w1"), one(t, CheckLBIdentity(declared, cfg), "load balancers"),
		one(t, CheckLBSingle(declared, cfg), "load balancers")} {
		if !r.Passed || r.Skipped == "" {
			t.Errorf("%s with the cloud declared out of reach: %+v", r.Check, r)
		}
	}
}

// declaring is evs with observer.start declaring key=value too.
func declaring(evs []timeline.Event, key, value string) []timeline.Event {
	out := append([]timeline.Event(nil), evs...)
	for i, e := range out {
		if e.Kind == timeline.ObserverStart {
			out[i].Attrs = maps.Clone(e.Attrs)
			if out[i].Attrs == nil {
				out[i].Attrs = map[string]string{}
			}
			out[i].Attrs[key] = value
		}
	}
	return out
}

const noCAWhy = "not available without --manager-ca: /metrics needs a credential, and none is sent to a manager whose certificate is not verified"

// healthOnly: both managers given and sampled by health alone, as observe
// --kubeconfig does without --manager-ca; the KCM hands svc to the CCM at 30 s.
func healthOnly(given string) []timeline.Event {
	return join(foreignProcedure(given), runsFor(0, 30, kcm, "cp-1", svc), runsFor(30.5, 60, kcm, "cp-1"),
		downFor(0, 30, ccm, "cp-1"), runsFor(30.5, 60, ccm, "cp-1", svc))
}

// Managers reached without a CA: the observation declares their /metrics
// out of reach, and the metrics are not judged (never passed, never blind),
// while everything else is judged as before, mutual exclusion from health.
func TestMetricsDeclaredOutOfReachAreNotJudged(t *testing.T) {
	given := "cloud-controller-manager@cp-1,kube-controller-manager@cp-1"
	evs := declaring(healthOnly(given), timeline.MetricsOutOfReach, noCAWhy)
	var skipped []string
	for _, r := range All(evs, cfg) {
		if !r.Passed {
			t.Errorf("%s/%s failed: %+v", r.Check, r.Subject, r)
		}
		if r.Skipped != "" {
			skipped = append(skipped, r.Check+"/"+r.Subject)
		}
	}
	// stale-node too: no instance was terminated in this observation;
	// image-pulls: no load pulled from a registry.
	if got := strings.Join(skipped, " "); got != "evidence/metrics stale-node/nodes image-pulls/nodes" {
		t.Errorf("not judged: %s, want evidence/metrics, stale-node/nodes and image-pulls/nodes alone", got)
	}
	if r := one(t, CheckEvidence(evs, cfg), "metrics"); r.Skipped != noCAWhy || !strings.Contains(r.Summary, "not judged: not available without --manager-ca") {
		t.Errorf("metrics: %+v", r)
	}
	if r := one(t, CheckMutualExclusion(evs, cfg), svc); !strings.Contains(r.Summary, "from health alone: the metrics not judged, not available without --manager-ca") {
		t.Errorf("mutual exclusion does not say it judged from health alone: %+v", r)
	}
	// Health still owed: a given manager silent for 20 s is blind.
	if r := one(t, CheckEvidence(without(evs, timeline.Health, ccm, "cp-1", 20, 40), cfg), "health"); r.Passed {
		t.Errorf("a silent given manager passed: %+v", r)
	}
	// An overlap health sees is red from health alone, saying why no
	// metrics corroborate it.
	double := declaring(join(foreignProcedure(given), runsFor(0, 35, kcm, "cp-1", svc), runsFor(35.5, 60, kcm, "cp-1"),
		downFor(0, 25, ccm, "cp-1"), runsFor(25.5, 60, ccm, "cp-1", svc)), timeline.MetricsOutOfReach, noCAWhy)
	r := one(t, CheckMutualExclusion(double, cfg), svc)
	if r.Passed || strings.Join(r.Violations[0].Sources, ",") != "health" || !strings.Contains(strings.Join(r.Violations[0].Evidence, "\n"), "the metrics not judged") {
		t.Errorf("an overlap seen by health alone: %+v", r)
	}
	// No health either: unproven, saying the metrics were out of reach.
	r = one(t, CheckMutualExclusion(declaring(foreignProcedure(given), timeline.MetricsOutOfReach, noCAWhy), cfg), svc)
	if !r.Unproven() || !strings.Contains(r.Violations[0].Message, "0 health intervals; the metrics not judged") {
		t.Errorf("no health sample: %+v", r)
	}
}

// Without the declaration, metrics missing are the observer's blindness:
// red, as ever.
func TestMetricsMissingUndeclaredAreBlind(t *testing.T) {
	evs := healthOnly("cloud-controller-manager@cp-1,kube-controller-manager@cp-1")
	r := one(t, CheckEvidence(evs, cfg), "metrics")
	if r.Passed || r.Skipped != "" || !strings.Contains(r.Violations[0].Message, "blind: the metrics observer recorded no metrics scrape") {
		t.Fatalf("metrics missing, undeclared: %+v", r)
	}
	if r := one(t, CheckMutualExclusion(evs, cfg), svc); !r.Passed || !strings.Contains(r.Summary, "and 0 metrics intervals checked") {
		t.Errorf("mutual exclusion: %+v", r)
	}
	// A hole in the metrics alone is red too.
	full := join(evs, metricsFor(0, 60, kcm, "cp-1"), metricsFor(0, 60, ccm, "cp-1"))
	if r := one(t, CheckEvidence(without(full, timeline.Metrics, kcm, "cp-1", 20, 40), cfg), "metrics"); r.Passed {
		t.Errorf("a 20 s hole in the metrics passed: %+v", r)
	}
}

// A cloud-controller-manager deployed while observed, found then
// (observer.managers) and sampled from then on: owed samples only from
// when it was found, and with both managers sampled exclusion is proven.
// Falling silent after it was found is still a hole.
func TestManagersFoundWhileObservingAreOwedFromThen(t *testing.T) {
	found := timeline.Event{Time: at(29), Source: "observer", Kind: timeline.ManagersFound,
		Attrs: map[string]string{timeline.FixedManagers: "cloud-controller-manager@cp-1"}}
	evs := join(foreignProcedure("kube-controller-manager@cp-1"), []timeline.Event{found},
		runsFor(0, 30, kcm, "cp-1", svc), runsFor(30.5, 60, kcm, "cp-1"),
		downFor(29, 30, ccm, "cp-1"), runsFor(30.5, 60, ccm, "cp-1", svc),
		metricsFor(0, 60, kcm, "cp-1"), metricsFor(29, 60, ccm, "cp-1"))
	for _, name := range []string{"health", "metrics"} {
		if r := one(t, CheckEvidence(evs, cfg), name); !r.Passed {
			t.Fatalf("%s: %+v (the CCM is owed samples only from when it was found)", name, r)
		}
	}
	if r := one(t, CheckMutualExclusion(evs, cfg), svc); !r.Passed || r.Unproven() {
		t.Fatalf("both managers sampled, one after the other: %+v", r)
	}
	r := one(t, CheckEvidence(without(evs, timeline.Health, ccm, "cp-1", 40, 55), cfg), "health")
	if r.Passed || !strings.Contains(r.Violations[0].Message, "cloud-controller-manager@cp-1") {
		t.Fatalf("a found manager that fell silent passed: %+v", r)
	}
}
