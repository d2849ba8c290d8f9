package selfusage

import (
	"fmt"
	"strconv"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// Share is handover's use of the machine over a span.
type Share struct {
	From, To time.Time
	// CorePct is handover's CPU as a percentage of one core.
	CorePct float64
	// PressurePct is the share of the span in which some runnable task
	// waited for a CPU (the host's "some" CPU pressure).
	PressurePct float64
}

// Summary is handover's use of the machine in a rehearsal.
type Summary struct {
	// Whole counts from the process's start (image checks and cluster
	// creation included) to the last sample; its pressure covers the
	// sampled span only.
	Whole Share
	// Setup is Whole before the first sample, when the timeline began: a
	// rehearsal's images built or checked and its cluster created (which
	// of them cost what, no sample tells). Observed is the rest. The two
	// are told apart only when Setup lasted a sampling period or more
	// (HasSetup), so a cold image build never reads as observing's cost.
	Setup, Observed Share
	HasSetup        bool
	// Procedure spans the procedure's runs (first run.start to last run.end).
	Procedure Share
	// HasProcedure says whether the timeline has a procedure to span.
	HasProcedure bool
	// PeakRSS is the most resident memory handover's processes held at
	// any sample, in bytes (0 from timelines that did not sample it).
	PeakRSS int64
}

type sample struct {
	t                  time.Time
	cpu, wall, stallUS float64
}

// Summarize reads the SelfUsage samples of a timeline; ok is false when
// there are fewer than two.
func Summarize(evs []timeline.Event) (Summary, bool) {
	var ss []sample
	var runFrom, runTo time.Time
	var peak int64
	for _, e := range evs {
		switch e.Kind {
		case timeline.SelfUsage:
			ss = append(ss, sample{t: e.Time, cpu: num(e.Attrs["cpu_s"]), wall: num(e.Attrs["wall_s"]), stallUS: num(e.Attrs["pressure_us"])})
			peak = max(peak, int64(num(e.Attrs["rss_bytes"])))
		case timeline.RunStart:
			if runFrom.IsZero() {
				runFrom = e.Time
			}
		case timeline.RunEnd:
			runTo = e.Time
		}
	}
	if len(ss) < 2 {
		return Summary{}, false
	}
	first, last := ss[0], ss[len(ss)-1]
	s := Summary{Whole: Share{From: last.t.Add(-time.Duration(last.wall * float64(time.Second))), To: last.t}, PeakRSS: peak}
	if last.wall > 0 {
		s.Whole.CorePct = 100 * last.cpu / last.wall
	}
	s.Whole.PressurePct = pressure(first, last)
	s.splitSetup(first, last)
	if !runFrom.IsZero() && runTo.After(runFrom) {
		a, b := nearest(ss, runFrom), nearest(ss, runTo)
		if b.t.After(a.t) {
			s.HasProcedure = true
			s.Procedure = Share{From: a.t, To: b.t, CorePct: 100 * (b.cpu - a.cpu) / b.t.Sub(a.t).Seconds(), PressurePct: pressure(a, b)}
		}
	}
	return s, true
}

// minSetup is the shortest setup told apart from observing: the
// sampler's period, below which it is only the process starting.
const minSetup = 5 * time.Second

// splitSetup divides Whole at the first sample: before it the process set
// up (its CPU there is what the first sample read), after it it observed.
func (s *Summary) splitSetup(first, last sample) {
	if first.wall < minSetup.Seconds() || !last.t.After(first.t) {
		return
	}
	s.HasSetup = true
	s.Setup = Share{From: s.Whole.From, To: first.t, CorePct: 100 * first.cpu / first.wall}
	s.Observed = Share{From: first.t, To: last.t, CorePct: 100 * (last.cpu - first.cpu) / last.t.Sub(first.t).Seconds(), PressurePct: s.Whole.PressurePct}
}

// String is the line the reports print.
func (s Summary) String() string {
	line := fmt.Sprintf("handover used %.1f %% of one core over the whole run (%s%s)", s.Whole.CorePct, s.Whole.To.Sub(s.Whole.From).Round(time.Second), s.setupText())
	if s.HasProcedure {
		line += fmt.Sprintf(", %.1f %% during the procedure (%s)", s.Procedure.CorePct, s.Procedure.To.Sub(s.Procedure.From).Round(time.Second))
	}
	if s.PeakRSS > 0 {
		line += fmt.Sprintf(", %d MiB resident at most", s.PeakRSS>>20)
	}
	line += fmt.Sprintf("; host CPU pressure %.0f %%", s.Whole.PressurePct)
	if s.HasProcedure {
		line += fmt.Sprintf(" (%.0f %% during the procedure)", s.Procedure.PressurePct)
	}
	return line
}

// setupText tells setting up from observing, "" when they are not told
// apart.
func (s Summary) setupText() string {
	if !s.HasSetup {
		return ""
	}
	return fmt.Sprintf("; %.1f %% over the %s setting up before the timeline, images and cluster included, %.1f %% over the %s observed",
		s.Setup.CorePct, s.Setup.To.Sub(s.Setup.From).Round(time.Second), s.Observed.CorePct, s.Observed.To.Sub(s.Observed.From).Round(time.Second))
}

func pressure(a, b sample) float64 {
	d := b.t.Sub(a.t).Seconds()
	if d <= 0 || b.stallUS < a.stallUS {
		return 0
	}
	return 100 * (b.stallUS - a.stallUS) / 1e6 / d
}

// nearest is the sample closest in time to t.
func nearest(ss []sample, t time.Time) sample {
	best := ss[0]
	for _, s := range ss[1:] {
		if s.t.Sub(t).Abs() < best.t.Sub(t).Abs() {
			best = s
		}
	}
	return best
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
