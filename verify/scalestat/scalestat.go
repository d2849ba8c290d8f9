// Package scalestat reads what a scale rehearsal measured off its
// timeline: how long simulated nodes waited for their ProviderID and for
// the uninitialised taint to go, by who initialised them (their in-tree
// kubelet, or the cloud-controller-manager); the managers' cloud calls per
// minute and how many the cloud throttled; and how long the new leader took
// to reconcile every load balancer after the hand-off. A few passes over
// the events, each linear, so it stays linear in the timeline's size.
package scalestat

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// Modes of registration, as scale.join events name them.
const (
	InTree   = "in-tree"
	External = "external"
)

const (
	uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"
	ccm                = "cloud-controller-manager"
	serviceController  = "service-lb-controller"
	throttled          = "429"
)

// Node is one simulated node's way to being initialised; a zero time is
// something that never happened while observed.
type Node struct {
	Name, Mode, Phase               string
	Joined, ProviderID, Initialised time.Time
}

// Latency is a mode's nodes: how many, their waits for a ProviderID and
// for initialisation, and how many never were initialised.
type Latency struct {
	Mode                    string
	Nodes, Unfinished       int
	ProviderID, Initialised Spread
}

// Spread is a distribution's median, 90th percentile and maximum.
type Spread struct{ P50, P90, Max time.Duration }

// Calls is one manager's cloud calls: in all, throttled, and per minute
// of the observation (index 0 is its first minute).
type Calls struct {
	Manager              string
	Total, Throttled     int
	PerMinute, Throttles []int
}

// Reconcile is the load balancers at the hand-off and the new leader's
// first successful call on each.
type Reconcile struct {
	HandOff     time.Time
	LBs, Done   int
	All         time.Duration // until the last one reconciled (when Done == LBs)
	Outstanding []string      // not reconciled while observed
	// Observed is how long the observation went on after the hand-off:
	// what was outstanding was not reconciled within it, which is all a
	// timeline can say.
	Observed time.Duration
}

// Summary is a scale rehearsal's figures.
type Summary struct {
	Nodes, Services int
	ThrottleQPS     string
	Start           time.Time
	Fleet           []Node
	Latencies       []Latency
	Calls           []Calls
	Reconcile       Reconcile
}

// Summarize reads a timeline; ok is false when it holds no simulated
// fleet.
func Summarize(evs []timeline.Event) (Summary, bool) {
	var s Summary
	i := slices.IndexFunc(evs, func(e timeline.Event) bool { return e.Kind == timeline.ScaleStart })
	if i < 0 {
		return s, false
	}
	start := evs[i]
	s.Nodes, _ = strconv.Atoi(start.Attrs["nodes"])
	s.Services, _ = strconv.Atoi(start.Attrs["services"])
	s.ThrottleQPS = start.Attrs["throttleQPS"]
	s.Start, _ = checks.Span(evs)
	s.Fleet = fleet(evs)
	s.Latencies = latencies(s.Fleet)
	s.Calls = calls(evs, s.Start)
	s.Reconcile = reconcile(evs)
	return s, true
}

// fleet follows each simulated node from its join to its initialisation.
func fleet(evs []timeline.Event) []Node {
	byName := map[string]*Node{}
	var order []string
	for _, e := range evs {
		switch e.Kind {
		case timeline.ScaleJoin:
			if byName[e.Node] == nil {
				order = append(order, e.Node)
			}
			byName[e.Node] = &Node{Name: e.Node, Mode: e.Attrs["mode"], Phase: e.Attrs["phase"], Joined: e.Time}
		case timeline.NodeAdded, timeline.NodeChanged:
			n := byName[e.Node]
			if n == nil || e.Attrs["providerID"] == "" {
				continue
			}
			if n.ProviderID.IsZero() {
				n.ProviderID = e.Time
			}
			if n.Initialised.IsZero() && !slices.Contains(strings.Split(e.Attrs["taints"], ","), uninitializedTaint) {
				n.Initialised = e.Time
			}
		}
	}
	out := make([]Node, 0, len(order))
	for _, name := range order {
		out = append(out, *byName[name])
	}
	return out
}

func latencies(nodes []Node) []Latency {
	var out []Latency
	for _, mode := range []string{InTree, External} {
		l := Latency{Mode: mode}
		var pid, init []time.Duration
		for _, n := range nodes {
			if n.Mode != mode {
				continue
			}
			l.Nodes++
			if !n.ProviderID.IsZero() {
				pid = append(pid, n.ProviderID.Sub(n.Joined))
			}
			if n.Initialised.IsZero() {
				l.Unfinished++
				continue
			}
			init = append(init, n.Initialised.Sub(n.Joined))
		}
		if l.Nodes == 0 {
			continue
		}
		l.ProviderID, l.Initialised = spread(pid), spread(init)
		out = append(out, l)
	}
	return out
}

func spread(ds []time.Duration) Spread {
	if len(ds) == 0 {
		return Spread{}
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[int(q*float64(len(ds)-1))] }
	return Spread{P50: at(0.5), P90: at(0.9), Max: ds[len(ds)-1]}
}

// calls counts each manager's cloud calls by minute of the observation.
func calls(evs []timeline.Event, start time.Time) []Calls {
	byManager := map[string]*Calls{}
	for _, e := range evs {
		if e.Kind != timeline.CloudCall || e.Manager == "" {
			continue
		}
		c := byManager[e.Manager]
		if c == nil {
			c = &Calls{Manager: e.Manager}
			byManager[e.Manager] = c
		}
		m := max(0, int(e.Time.Sub(start)/time.Minute))
		for len(c.PerMinute) <= m {
			c.PerMinute, c.Throttles = append(c.PerMinute, 0), append(c.Throttles, 0)
		}
		c.Total++
		c.PerMinute[m]++
		if e.Attrs["status"] == throttled {
			c.Throttled++
			c.Throttles[m]++
		}
	}
	out := make([]Calls, 0, len(byManager))
	for _, c := range byManager {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Manager < out[j].Manager })
	return out
}

// reconciling are the calls that put a load balancer in the state its
// Service asks for.
var reconciling = map[string]bool{"EnsureLoadBalancer": true, "UpdateLoadBalancer": true}

// handOff is when the cloud-controller-manager began running the service
// controller: its first call to the cloud as that controller (the sweep a
// new leader starts with), or its first health sample showing it, whichever
// came first.
func handOff(evs []timeline.Event) time.Time {
	var at time.Time
	earlier := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	for _, iv := range checks.Activity(evs)[serviceController] {
		if iv.Manager == ccm {
			earlier(iv.From)
		}
	}
	for _, e := range evs {
		if e.Kind == timeline.CloudCall && e.Manager == ccm && e.Controller == serviceController {
			earlier(e.Time)
		}
	}
	return at
}

// reconcile measures, from the hand-off, until the cloud-controller-
// manager's first successful ensure or update of each load balancer that
// existed then.
func reconcile(evs []timeline.Event) Reconcile {
	r := Reconcile{HandOff: handOff(evs)}
	if r.HandOff.IsZero() {
		return r
	}
	live := map[string]bool{}
	done := map[string]time.Time{}
	for _, e := range evs {
		if d := e.Time.Sub(r.HandOff); d > r.Observed {
			r.Observed = d
		}
		switch {
		case !e.Time.After(r.HandOff) && e.Kind == timeline.LBCreated:
			live[e.Attrs["name"]] = true
		case !e.Time.After(r.HandOff) && e.Kind == timeline.LBDeleted:
			delete(live, e.Attrs["name"])
		case !e.Time.Before(r.HandOff) && e.Kind == timeline.CloudCall && e.Manager == ccm && e.Controller == serviceController &&
			reconciling[e.Attrs["operation"]] && e.Attrs["status"] == "200" && live[e.Attrs["resource"]]:
			// The audit is copied a second late, so calls are not in
			// time order among the other events: the earliest counts.
			if t, seen := done[e.Attrs["resource"]]; !seen || e.Time.Before(t) {
				done[e.Attrs["resource"]] = e.Time
			}
		}
	}
	r.LBs, r.Done = len(live), len(done)
	for name := range live {
		t, ok := done[name]
		if !ok {
			r.Outstanding = append(r.Outstanding, name)
			continue
		}
		r.All = max(r.All, t.Sub(r.HandOff))
	}
	sort.Strings(r.Outstanding)
	return r
}
