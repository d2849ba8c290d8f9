package timeline

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// Observation is one observer's timeline, named for the reports (the node
// it ran on, or its file).
type Observation struct {
	Name   string
	Events []Event
}

// Merged is several observations joined into one timeline, with each
// one's clock offset from the first as measured.
type Merged struct {
	Events []Event
	// Offsets are each later observation's clock minus the first's, and
	// how far the matched events spread around it.
	Offsets []Offset
}

// Offset is one observation's measured clock offset.
type Offset struct {
	Name          string
	Offset, Bound time.Duration
	Matched       int
}

func (o Offset) String() string {
	sign := "+"
	if o.Offset < 0 {
		sign = "" // the duration carries its minus
	}
	return fmt.Sprintf("%s %s%v ±%v (%d shared changes)", o.Name, sign, o.Offset.Round(time.Millisecond), o.Bound.Round(time.Millisecond), o.Matched)
}

// perObserver are the kinds an observer records of what only it reaches
// (its node's managers, its API server's audit log): the merged timeline
// takes them from every observation. Everything else (the API's Nodes,
// leases, Services, pods, probes) every observer saw alike, and is taken
// from the first alone.
var perObserver = []string{Health, Metrics, APIWrite, ManagersFound}

// shared are the kinds whose events mark one moment of the cluster for
// every observer (a watch delivers a change to all within milliseconds):
// the clocks are compared on them.
var shared = []string{Lease, NodeChanged, NodeDeleted}

// initialList is how long after an observer starts its watches deliver
// their first lists: those events mark the observer's start, not the
// cluster's changes.
const initialList = 10 * time.Second

// Merge joins observations of one cluster by observers on several nodes
// into one timeline. Each later observation's clock is set to the first's
// by the changes both watched (lease holders, Nodes); an observation that
// shares none cannot be placed and is refused, as is one whose offset
// spreads wider than tolerance (the checks' clock tolerance).
func Merge(obs []Observation, tolerance time.Duration) (Merged, error) {
	if len(obs) < 2 {
		return Merged{}, fmt.Errorf("merging needs two observations or more, got %d", len(obs))
	}
	ref := obs[0]
	var m Merged
	out := slices.Clone(ref.Events)
	for _, o := range obs[1:] {
		off, err := offset(ref, o)
		if err != nil {
			return Merged{}, err
		}
		if off.Bound > tolerance {
			return Merged{}, fmt.Errorf("%s: its clock is %v from %s's, give or take %v: more than the checks' clock tolerance (%v) can absorb; synchronise the nodes' clocks (NTP) and observe again",
				o.Name, off.Offset.Round(time.Millisecond), ref.Name, off.Bound.Round(time.Millisecond), tolerance)
		}
		m.Offsets = append(m.Offsets, off)
		for _, e := range o.Events {
			if slices.Contains(perObserver, e.Kind) {
				e.Time = e.Time.Add(-off.Offset)
				out = append(out, e)
			}
		}
		out = joinStarts(out, o, off.Offset)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	m.Events = out
	return m, nil
}

// joinStarts adds o's managers to the first observer.start and moves the
// observer.stop to the later of the two ends.
func joinStarts(evs []Event, o Observation, off time.Duration) []Event {
	var start, stop *Event
	for i := range evs {
		switch evs[i].Kind {
		case ObserverStart:
			if start == nil {
				start = &evs[i]
			}
		case ObserverStop:
			stop = &evs[i]
		}
	}
	for _, e := range o.Events {
		switch {
		case e.Kind == ObserverStart && start != nil:
			if given, ok := e.Attrs[FixedManagers]; ok {
				// A copy: the first observation's events are the caller's.
				start.Attrs = maps.Clone(start.Attrs)
				if start.Attrs == nil {
					start.Attrs = map[string]string{}
				}
				start.Attrs[FixedManagers] = unionList(start.Attrs[FixedManagers], given)
			}
		case e.Kind == ObserverStop && stop != nil && e.Time.Add(-off).After(stop.Time):
			stop.Time = e.Time.Add(-off)
		}
	}
	return evs
}

// unionList joins two comma-separated lists, each item once, sorted.
func unionList(a, b string) string {
	var items []string
	for _, s := range strings.Split(a+","+b, ",") {
		if s != "" && !slices.Contains(items, s) {
			items = append(items, s)
		}
	}
	slices.Sort(items)
	return strings.Join(items, ",")
}

// offset is o's clock minus ref's: the median difference of the changes
// both recorded, bounded by how far those differences spread.
func offset(ref, o Observation) (Offset, error) {
	at := changes(ref.Events)
	var ds []time.Duration
	for key, t := range changes(o.Events) {
		if r, ok := at[key]; ok {
			ds = append(ds, t.Sub(r))
		}
	}
	if len(ds) == 0 {
		return Offset{}, fmt.Errorf("%s and %s share no change of a lease holder or a Node (past their first lists): their clocks cannot be compared; observe across a change, as a migration makes", ref.Name, o.Name)
	}
	slices.Sort(ds)
	med := ds[len(ds)/2]
	bound := max(med-ds[0], ds[len(ds)-1]-med)
	return Offset{Name: o.Name, Offset: med, Bound: bound, Matched: len(ds)}, nil
}

// changes are an observation's shared events past its first lists, each
// by what it records, at its first time.
func changes(evs []Event) map[string]time.Time {
	var started time.Time
	for _, e := range evs {
		if e.Kind == ObserverStart {
			started = e.Time
			break
		}
	}
	out := map[string]time.Time{}
	for _, e := range evs {
		if !slices.Contains(shared, e.Kind) || e.Time.Before(started.Add(initialList)) {
			continue
		}
		k, err := json.Marshal([]any{e.Kind, e.Node, e.Attrs})
		if err != nil {
			continue
		}
		if _, seen := out[string(k)]; !seen {
			out[string(k)] = e.Time
		}
	}
	return out
}
