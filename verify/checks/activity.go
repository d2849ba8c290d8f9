package checks

import (
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// RunSpan is a time one manager instance ran one controller (not to be
// confused with migrate's intervals, which are how long a step waits).
type RunSpan struct {
	Manager, Instance string
	From, To          time.Time
}

// activity is each controller's certain and possible intervals.
type activity struct {
	certain, possible map[string][]RunSpan
}

// healthActivity reads the health samples.
func healthActivity(evs []timeline.Event) activity { return sampledActivity(evs, timeline.Health) }

// metricsActivity reads the metrics scrapes (running_managed_controllers).
func metricsActivity(evs []timeline.Event) activity { return sampledActivity(evs, timeline.Metrics) }

// sampledActivity reads samples of one kind whose "controllers" attribute
// lists what an instance ran.
func sampledActivity(evs []timeline.Event, kind string) activity {
	type key struct{ manager, instance string }
	samples := map[key][]timeline.Event{}
	for _, e := range evs {
		if e.Kind == kind {
			k := key{e.Manager, e.Instance}
			samples[k] = append(samples[k], e)
		}
	}
	a := activity{certain: map[string][]RunSpan{}, possible: map[string][]RunSpan{}}
	for k, ss := range samples {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].Time.Before(ss[j].Time) })
		for _, c := range controllersIn(ss) {
			cert, poss := runs(ss, c)
			for _, r := range cert {
				a.certain[c] = append(a.certain[c], RunSpan{k.manager, k.instance, r[0], r[1]})
			}
			for _, r := range poss {
				a.possible[c] = append(a.possible[c], RunSpan{k.manager, k.instance, r[0], r[1]})
			}
		}
	}
	return a
}

func running(e timeline.Event) []string {
	if e.Attrs["up"] == "false" || e.Attrs["controllers"] == "" {
		return nil
	}
	return strings.Split(e.Attrs["controllers"], ",")
}

func has(e timeline.Event, c string) bool {
	for _, r := range running(e) {
		if r == c {
			return true
		}
	}
	return false
}

func controllersIn(ss []timeline.Event) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		for _, c := range running(s) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// lastSampleSlack is how long after its last sample an instance is taken
// to possibly still run (the observer stopped polling it).
const lastSampleSlack = time.Second

// runs turns one instance's samples into certain runs (first to last sample
// of consecutive samples showing c) and possible runs (to the next sample
// not showing it).
func runs(ss []timeline.Event, c string) (certain, possible [][2]time.Time) {
	for i := 0; i < len(ss); i++ {
		if !has(ss[i], c) {
			continue
		}
		j := i
		for j+1 < len(ss) && has(ss[j+1], c) {
			j++
		}
		certain = append(certain, [2]time.Time{ss[i].Time, ss[j].Time})
		end := ss[j].Time.Add(lastSampleSlack)
		if j+1 < len(ss) {
			end = ss[j+1].Time
		}
		start := ss[i].Time
		if i > 0 {
			start = ss[i-1].Time // it may have started just after the sample before
		}
		possible = append(possible, [2]time.Time{start, end})
		i = j
	}
	return certain, possible
}

// span is the observation window.
func span(evs []timeline.Event) (from, to time.Time) {
	for _, e := range evs {
		if from.IsZero() || e.Time.Before(from) {
			from = e.Time
		}
		if e.Time.After(to) {
			to = e.Time
		}
	}
	for _, e := range evs {
		switch e.Kind {
		case timeline.ObserverStart:
			from = e.Time
		case timeline.ObserverStop:
			to = e.Time
		}
	}
	return from, to
}

// Activity is each controller's certain intervals, for plotting.
func Activity(evs []timeline.Event) map[string][]RunSpan {
	return healthActivity(evs).certain
}

// Span is the observation window of a timeline.
func Span(evs []timeline.Event) (from, to time.Time) { return span(evs) }
