package selfusage

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// Sampler writes a SelfUsage event at its start, every period, and at Stop.
type Sampler struct {
	tl     *timeline.Writer
	pids   func() []int
	from   Mark
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// processStart is close enough to this process's start: package
// variables are set before main runs.
var processStart = time.Now()

// Mark is a point the samples count from: when, and the CPU this process
// had used by then.
type Mark struct {
	t   time.Time
	cpu float64
}

// Now marks the present: a rehearsal counts from its own start, which in
// a process that ran others before (a suite) is not the process's.
func Now() Mark { return Mark{t: time.Now(), cpu: processCPU(0)} }

// Start samples this process and the processes pids returns (handover's
// others, such as the simulated cloud's server) from the process's start.
func Start(ctx context.Context, tl *timeline.Writer, every time.Duration, pids func() []int) *Sampler {
	return StartFrom(ctx, tl, every, pids, Mark{t: processStart})
}

// StartFrom is Start counting from a mark.
func StartFrom(ctx context.Context, tl *timeline.Writer, every time.Duration, pids func() []int, from Mark) *Sampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &Sampler{tl: tl, pids: pids, from: from, cancel: cancel}
	s.sample()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

// Stop writes the last sample; later calls do nothing.
func (s *Sampler) Stop() {
	s.once.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.sample()
	})
}

func (s *Sampler) sample() {
	pids := []int{0}
	if s.pids != nil {
		pids = append(pids, s.pids()...)
	}
	u := Read(pids...)
	_ = s.tl.Write(timeline.Event{Source: "self", Kind: timeline.SelfUsage, Attrs: map[string]string{
		"cpu_s":       strconv.FormatFloat(max(u.CPU-s.from.cpu, 0), 'f', 2, 64),
		"wall_s":      strconv.FormatFloat(time.Since(s.from.t).Seconds(), 'f', 2, 64),
		"pressure_us": strconv.FormatFloat(u.PressureUS, 'f', 0, 64),
		"rss_bytes":   strconv.FormatInt(u.RSS, 10),
	}})
}
