package checks

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// ImagePulls is the check that pods whose image is in the cloud's
// registry keep starting on every node across the switch: the in-tree
// kubelets through their in-tree credential provider, the external ones
// through an image credential provider plugin (kubernetes/kubernetes#120411:
// without one, pulls from the cloud's registry fail once the in-tree
// provider is gone).
const ImagePulls = "image-pulls"

// CheckImagePulls: every pull the load started on a node succeeded. A
// load that was to pull and recorded none is unproven; a cloud without a
// registry has nothing to judge.
func CheckImagePulls(evs []timeline.Event, _ Config) []Result {
	var load *timeline.Event
	for i, e := range evs {
		if e.Kind == timeline.LoadStart && e.Attrs[timeline.PullImage] != "" {
			load = &evs[i]
		}
	}
	image := ""
	if load != nil {
		image = load.Attrs[timeline.PullImage]
	}
	// A pull whose node the runner or the load took away before it ended
	// (its instance terminated: the kubelet may be gone) is not judged.
	removed := map[string]time.Time{}
	for _, e := range evs {
		if _, seen := removed[e.Node]; e.Kind == timeline.NodeRemove && !seen {
			removed[e.Node] = e.Time
		}
	}
	byNode := map[string][]timeline.Event{}
	for _, e := range evs {
		if r, ok := removed[e.Node]; e.Kind == timeline.ImagePull && (!ok || e.Time.Before(r)) {
			byNode[e.Node] = append(byNode[e.Node], e)
		}
	}
	switch {
	case image == "" && len(byNode) == 0:
		return []Result{notJudged(ImagePulls, "nodes", "no load pulled from a registry of the cloud's (no load, or a cloud without one)")}
	case len(byNode) == 0:
		return []Result{unproven(evs, ImagePulls, "nodes", "the load was to pull "+image+" on every node and recorded no pull")}
	}
	var out []Result
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		out = append(out, judgePulls(node, byNode[node]))
	}
	if load != nil {
		for _, u := range unpulled(evs, *load, byNode) {
			there, every := u.there.Round(time.Second), load.Attrs[timeline.PullEvery]
			if u.short {
				out = append(out, notJudged(ImagePulls, u.node, fmt.Sprintf("no round of pulls reached it in its %s under the load (every %s)", there, every)))
				continue
			}
			out = append(out, unproven(evs, ImagePulls, u.node, fmt.Sprintf("no pull recorded on a Node there %s while the load pulled every %s", there, every)))
		}
	}
	return out
}

type presence struct {
	node  string
	there time.Duration
	short bool // too briefly for two rounds and a pull's wait
}

// unpulled are the Nodes with no pull recorded during the load: those
// there long enough for two pull rounds and a pull's wait (a joining
// node's first minute of NotReady included) lack the evidence (each round
// starts one on every Ready node); the others were there too briefly to
// judge. A scale rehearsal's simulated nodes are never pulled on.
func unpulled(evs []timeline.Event, load timeline.Event, pulled map[string][]timeline.Event) []presence {
	every, err1 := time.ParseDuration(load.Attrs[timeline.PullEvery])
	limit, err2 := time.ParseDuration(load.Attrs[timeline.PullLimit])
	if err1 != nil || err2 != nil {
		return nil
	}
	end := load.Time
	for _, e := range evs {
		if e.Kind == timeline.LoadStop && e.Time.After(end) {
			end = e.Time
		}
	}
	added, gone, simulated := map[string]time.Time{}, map[string]time.Time{}, map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case timeline.ScaleJoin:
			simulated[e.Node] = true
		case timeline.NodeAdded:
			if _, ok := added[e.Node]; !ok {
				added[e.Node] = e.Time
			}
		case timeline.NodeDeleted, timeline.NodeRemove:
			if _, ok := gone[e.Node]; !ok {
				gone[e.Node] = e.Time
			}
		}
	}
	var out []presence
	for _, n := range slices.Sorted(maps.Keys(added)) {
		from, to := added[n], end
		if from.Before(load.Time) {
			from = load.Time
		}
		if g, ok := gone[n]; ok && g.Before(to) {
			to = g
		}
		if len(pulled[n]) == 0 && !simulated[n] && to.After(from) {
			out = append(out, presence{n, to.Sub(from), to.Sub(from) <= 2*every+limit})
		}
	}
	return out
}

// judgePulls: a node's pulls, each failed one a violation.
func judgePulls(node string, pulls []timeline.Event) Result {
	var vs []Violation
	for _, p := range pulls {
		if p.Attrs["ok"] == "true" {
			continue
		}
		ms, _ := strconv.Atoi(p.Attrs["ms"])
		began := p.Time.Add(-time.Duration(ms) * time.Millisecond) // written at its outcome
		vs = append(vs, Violation{From: began, To: p.Time, Sources: []string{"load"},
			Message:  fmt.Sprintf("a pod of %s did not start: %s", p.Attrs["image"], p.Attrs["error"]),
			Evidence: []string{fmt.Sprintf("%s %s on %s: ok=%s %s", clock(p.Time), p.Kind, node, p.Attrs["ok"], p.Attrs["error"])}})
	}
	first, last := pulls[0].Time, pulls[len(pulls)-1].Time
	summary := fmt.Sprintf("%d of %d pull(s) from the cloud's registry started their pod (%s – %s)", len(pulls)-len(vs), len(pulls), clock(first), clock(last))
	return result(ImagePulls, node, vs, summary, map[string]float64{"pulls": float64(len(pulls)), "failed": float64(len(vs))})
}
