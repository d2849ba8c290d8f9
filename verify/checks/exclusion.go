package checks

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// interleaveWindow bounds the A-B-A pattern of writes that shows two
// managers running one controller at once.
const interleaveWindow = 10 * time.Second

// CheckMutualExclusion: per controller, no two manager instances ran it at
// the same time for longer than the tolerance. Health and metrics each give
// intervals; the API audit and the cloud audit corroborate an overlap, and
// on their own flag writes by two managers interleaving within a few
// seconds. Where the observation declared the metrics out of reach, it
// judges from health alone and says so.
func CheckMutualExclusion(evs []timeline.Event, cfg Config) []Result {
	act := healthActivity(evs)
	met := metricsActivity(evs)
	noMetrics := metricsOutOfReach(evs)
	points := pointActivity(evs)
	smp := samplingOf(evs)
	var out []Result
	for _, c := range cfg.Controllers {
		var vs []Violation
		for _, v := range overlaps("health", act.certain[c], cfg.Tolerance) {
			v.Sources = []string{"health"}
			if overlapsWithin(met.certain[c], v.From.Add(-cfg.Tolerance), v.To.Add(cfg.Tolerance), cfg.Tolerance) {
				v.Sources = append(v.Sources, "metrics")
			} else if noMetrics != "" {
				v.Evidence = append(v.Evidence, metricsNotJudged(noMetrics))
			}
			v.Sources = append(v.Sources, corroborate(points[c], v.From.Add(-cfg.Tolerance), v.To.Add(cfg.Tolerance))...)
			vs = append(vs, v)
		}
		for _, v := range overlaps("metrics", met.certain[c], cfg.Tolerance) {
			if covered(vs, v.From, v.To) {
				continue
			}
			v.Sources = append([]string{"metrics"}, corroborate(points[c], v.From.Add(-cfg.Tolerance), v.To.Add(cfg.Tolerance))...)
			vs = append(vs, v)
		}
		for src, ps := range points[c] {
			vs = append(vs, interleavings(src, ps, vs)...)
		}
		sort.Slice(vs, func(i, j int) bool { return vs[i].From.Before(vs[j].From) })
		if why := exclusionUnproven(smp, len(act.certain[c]), len(met.certain[c]), noMetrics); len(vs) == 0 && why != "" {
			out = append(out, unproven(evs, MutualExclusion, c, why, samplesSeen(evs, noMetrics)))
			continue
		}
		summary := fmt.Sprintf("%d overlapping run(s)", len(vs))
		if len(vs) == 0 {
			summary = fmt.Sprintf("never ran in two managers at once (%s%s%s)", intervalsChecked(len(act.certain[c]), len(met.certain[c]), noMetrics), writesSeen(points[c]), smp.absent)
		}
		out = append(out, result(MutualExclusion, c, vs, summary, map[string]float64{"violations": float64(len(vs))}))
	}
	return out
}

// sampling is which managers the observers were given to sample (a
// cluster observed from its kubeconfig), by kind, and which of the others
// the API proves absent; read once per timeline.
type sampling struct {
	given  []string // manager@instance
	fixed  bool
	kinds  map[string]bool
	absent string // absentOthers' statement, "" for none
}

func samplingOf(evs []timeline.Event) sampling {
	s := sampling{kinds: map[string]bool{}}
	s.given, _, s.fixed = fixedManagers(evs)
	for _, g := range s.given {
		m, _, _ := strings.Cut(g, "@")
		s.kinds[m] = true
	}
	if s.fixed {
		s.absent = absentOthers(evs, s.kinds)
	}
	return s
}

// exclusionUnproven says why finding no overlap proves nothing ("" when it
// proves there was none): no manager seen running the controller, or, where
// the observers were given the managers, none or only one kind of them (the
// other could run it unseen). noMetrics is why the metrics were out of
// reach, if they were.
func exclusionUnproven(smp sampling, health, metrics int, noMetrics string) string {
	switch {
	case smp.fixed && len(smp.given) == 0:
		return "no manager was sampled (API evidence alone: managedFields, Events, audit): it shows two managers writing in turn, never that only one ran; give each manager's secure port (--manager), or observe from the nodes where they listen (the lines before the window say how)"
	case smp.fixed && len(smp.kinds) < len(managers.Names()) && smp.absent == "":
		// Unless the managers not sampled had no pod at all: they ran
		// nothing.
		return fmt.Sprintf("only %s was sampled (%s), and the other has pods or its pods were not recorded: it could run it unseen; give both managers of every control plane (--manager)",
			strings.Join(sortedKeys(smp.kinds), ", "), strings.Join(smp.given, ", "))
	case health+metrics == 0 && noMetrics != "":
		return "no health sample shows any manager running it (0 health intervals; " + metricsNotJudged(noMetrics) + "): no overlap could have been seen"
	case health+metrics == 0:
		return "no health or metrics sample shows any manager running it (0 health and 0 metrics intervals): no overlap could have been seen"
	}
	return ""
}

// absentOthers says which managers not among sampled ran no pod in
// kube-system the whole time it was observed, proven from the API ("" when
// none is, or the managers' pods were not recorded). Pods prove an absence
// only where the managers run as pods: some manager's pod was seen.
func absentOthers(evs []timeline.Event, sampled map[string]bool) string {
	recorded, had := map[string]bool{}, map[string]bool{}
	anyPod := false
	for _, e := range evs {
		if e.Kind == timeline.ManagerPods {
			recorded[e.Manager] = true
			had[e.Manager] = had[e.Manager] || e.Attrs["pods"] != ""
			anyPod = anyPod || had[e.Manager]
		}
	}
	if !anyPod {
		return ""
	}
	var absent []string
	for _, m := range managers.Names() {
		if sampled[m] {
			continue
		}
		if !recorded[m] || had[m] {
			return ""
		}
		absent = append(absent, m)
	}
	if len(absent) == 0 {
		return ""
	}
	return "; proven from the API that " + strings.Join(absent, " and ") + " never ran: no pod of it in kube-system while observed"
}

// intervalsChecked says what the check read: from health alone, and why,
// where the metrics were out of reach.
func intervalsChecked(health, metrics int, noMetrics string) string {
	switch {
	case noMetrics != "" && metrics == 0:
		return fmt.Sprintf("%d health intervals checked, from health alone: %s", health, metricsNotJudged(noMetrics))
	case noMetrics != "":
		return fmt.Sprintf("%d health and %d metrics intervals checked, the metrics only where in reach: %s", health, metrics, noMetrics)
	}
	return fmt.Sprintf("%d health and %d metrics intervals checked", health, metrics)
}

// samplesSeen counts the samples behind an unproven verdict.
func samplesSeen(evs []timeline.Event, noMetrics string) string {
	s := fmt.Sprintf("%d health samples, %d metrics samples", countKind(evs, timeline.Health), countKind(evs, timeline.Metrics))
	if noMetrics != "" {
		s += " (" + metricsNotJudged(noMetrics) + ")"
	}
	return s
}

// metricsNotJudged says why the metrics were not read.
func metricsNotJudged(why string) string { return "the metrics not judged, " + why }

// overlapsWithin says whether two instances' intervals, clipped to the
// window, overlap for longer than tol.
func overlapsWithin(ivs []RunSpan, from, to time.Time, tol time.Duration) bool {
	var in []RunSpan
	for _, iv := range ivs {
		iv.From, iv.To = later(iv.From, from), earlier(iv.To, to)
		if iv.To.After(iv.From) {
			in = append(in, iv)
		}
	}
	return len(overlaps("", in, tol)) > 0
}

// overlaps of intervals from different instances longer than tol; src
// names where the intervals come from in the evidence.
func overlaps(src string, ivs []RunSpan, tol time.Duration) []Violation {
	// In time order, ties by name, so that a violation names its managers
	// the same way whatever order the spans were gathered in.
	ivs = slices.Clone(ivs)
	slices.SortStableFunc(ivs, func(a, b RunSpan) int {
		return cmp.Or(a.From.Compare(b.From), cmp.Compare(a.Manager, b.Manager), cmp.Compare(a.Instance, b.Instance))
	})
	var out []Violation
	for i := range ivs {
		for j := i + 1; j < len(ivs); j++ {
			a, b := ivs[i], ivs[j]
			if a.Manager == b.Manager && a.Instance == b.Instance {
				continue
			}
			from, to := later(a.From, b.From), earlier(a.To, b.To)
			if to.Sub(from) <= tol {
				continue
			}
			out = append(out, Violation{From: from, To: to,
				Message: fmt.Sprintf("ran in %s@%s and %s@%s for %s", a.Manager, a.Instance, b.Manager, b.Instance, to.Sub(from).Round(100*time.Millisecond)),
				Evidence: []string{
					fmt.Sprintf("%s: %s@%s ran it %s – %s", src, a.Manager, a.Instance, clock(a.From), clock(a.To)),
					fmt.Sprintf("%s: %s@%s ran it %s – %s", src, b.Manager, b.Instance, clock(b.From), clock(b.To)),
				}})
		}
	}
	return out
}

// point is one write or cloud call attributed to a manager.
type point struct {
	at      time.Time
	manager string
	what    string
}

// pointActivity groups API writes and cloud calls by controller and source.
func pointActivity(evs []timeline.Event) map[string]map[string][]point {
	out := map[string]map[string][]point{}
	for _, e := range evs {
		src := map[string]string{timeline.APIWrite: "api-audit", timeline.CloudCall: "cloud-audit", timeline.ManagedWrite: e.Source}[e.Kind]
		if src == "" || e.Controller == "" || e.Manager == "" {
			continue
		}
		if out[e.Controller] == nil {
			out[e.Controller] = map[string][]point{}
		}
		what := e.Attrs["verb"] + " " + e.Attrs["resource"] + " " + e.Attrs["name"]
		switch e.Kind {
		case timeline.CloudCall:
			what = e.Attrs["operation"] + " " + e.Attrs["resource"]
		case timeline.ManagedWrite:
			what = strings.TrimSpace(e.Attrs["resource"] + " " + e.Attrs["name"] + " " + e.Attrs["reason"])
		}
		out[e.Controller][src] = append(out[e.Controller][src], point{e.Time, e.Manager, what})
	}
	for _, bySrc := range out {
		for _, ps := range bySrc {
			sort.SliceStable(ps, func(i, j int) bool { return ps[i].at.Before(ps[j].at) })
		}
	}
	return out
}

// writesSeen says how many attributed writes of each source were read
// beside the intervals ("" for none).
func writesSeen(bySrc map[string][]point) string {
	var parts []string
	for _, src := range sortedKeys(bySrc) {
		parts = append(parts, fmt.Sprintf("%d %s", len(bySrc[src]), src))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; writes read: " + strings.Join(parts, ", ")
}

// corroborate names the sources with activity of two managers in a window.
func corroborate(bySrc map[string][]point, from, to time.Time) []string {
	var out []string
	for src, ps := range bySrc {
		seen := map[string]bool{}
		for _, p := range ps {
			if !p.at.Before(from) && !p.at.After(to) {
				seen[p.manager] = true
			}
		}
		if len(seen) > 1 {
			out = append(out, src)
		}
	}
	sort.Strings(out)
	return out
}

// interleavings finds A, B, A sequences (two managers) within the window
// that no health overlap already covers.
func interleavings(src string, ps []point, known []Violation) []Violation {
	var out []Violation
	for i := 0; i+2 < len(ps); i++ {
		a, b := ps[i], ps[i+1]
		if a.manager == b.manager || unordered(a, b) {
			continue
		}
		for k := i + 2; k < len(ps) && ps[k].at.Sub(a.at) <= interleaveWindow; k++ {
			if ps[k].manager != a.manager || unordered(b, ps[k]) {
				continue
			}
			if covered(known, a.at, ps[k].at) || covered(out, a.at, ps[k].at) {
				break
			}
			out = append(out, Violation{From: a.at, To: ps[k].at, Sources: []string{src},
				Message: fmt.Sprintf("%s writes interleave: %s, then %s, then %s again within %s", src, a.manager, b.manager, a.manager, ps[k].at.Sub(a.at).Round(100*time.Millisecond)),
				Evidence: []string{
					fmt.Sprintf("%s %s: %s", clock(a.at), a.manager, a.what),
					fmt.Sprintf("%s %s: %s", clock(b.at), b.manager, b.what),
					fmt.Sprintf("%s %s: %s", clock(ps[k].at), ps[k].manager, ps[k].what),
				}})
			break
		}
	}
	return out
}

// unordered: writes read off managedFields and Events carry whole seconds,
// and two of them in one second are in no known order.
func unordered(x, y point) bool {
	whole := func(t time.Time) bool { return t.Equal(t.Truncate(time.Second)) }
	return whole(x.at) && whole(y.at) && x.at.Equal(y.at)
}

func covered(vs []Violation, from, to time.Time) bool {
	for _, v := range vs {
		if !from.After(v.To) && !to.Before(v.From) {
			return true
		}
	}
	return false
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
