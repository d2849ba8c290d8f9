package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// RunOptions bound a run to a range of steps.
type RunOptions struct {
	From  string // first step to consider ("" = the first)
	Until string // last step to run ("" = the last)
}

// Range resolves From and Until to step indexes.
func (o RunOptions) Range(p *Procedure) (first, last int, err error) {
	first, last = 0, len(p.Steps)-1
	if o.From != "" {
		if first = p.Index(o.From); first < 0 {
			return 0, 0, fmt.Errorf("--from-step %q: %s has no such step (see `handover plan --procedure %s`)", o.From, p.Name, p.Name)
		}
	}
	if o.Until != "" {
		if last = p.Index(o.Until); last < 0 {
			return 0, 0, fmt.Errorf("--until-step %q: %s has no such step (see `handover plan --procedure %s`)", o.Until, p.Name, p.Name)
		}
	}
	if first > last {
		return 0, 0, fmt.Errorf("--from-step %s comes after --until-step %s", o.From, o.Until)
	}
	return first, last, nil
}

// Run runs the procedure's steps in order. A step whose postcondition
// already holds is skipped, so a run interrupted between steps completes
// when run again. A failed step is undone where it can be, and stops the run.
func Run(ctx context.Context, p *Procedure, e *Env, o RunOptions) error {
	first, last, err := o.Range(p)
	if err != nil {
		return err
	}
	start := time.Now()
	e.event(timeline.Event{Kind: timeline.RunStart, Message: p.Title, Attrs: map[string]string{
		"controllers": strings.Join(e.Spec.Controllers(), ","), "leaderName": e.Spec.LeaderName,
		// What the run takes, for the timeline's reader to hold its steps to.
		timeline.RunSteps: strings.Join(p.names(), ","), timeline.RunFrom: p.Steps[first].Name, timeline.RunUntil: p.Steps[last].Name}})
	for i := first; i <= last; i++ {
		if err := runStep(ctx, &p.Steps[i], i+1, len(p.Steps), e); err != nil {
			e.event(timeline.Event{Kind: timeline.RunEnd, Outcome: outcome(err), Message: err.Error()})
			return err
		}
	}
	e.event(timeline.Event{Kind: timeline.RunEnd, Outcome: timeline.OK})
	e.Logger.V(0).Infof("✓ %s: steps %d-%d done in %s", p.Name, first+1, last+1, time.Since(start).Round(time.Second))
	return nil
}

func runStep(ctx context.Context, s *Step, n, of int, e *Env) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted before step %d (%s): %w", n, s.Name, err)
	}
	ev := timeline.Event{Step: s.Name, Index: n}
	if s.Done != nil {
		done, err := s.Done(ctx, e)
		if err != nil {
			return fmt.Errorf("step %d (%s): checking whether it is done: %w", n, s.Name, err)
		}
		if done {
			ev.Kind, ev.Outcome = timeline.StepSkipped, timeline.AlreadyDone
			e.event(ev)
			e.Logger.V(0).Infof(" ✓ [%d/%d] %s (already done)", n, of, s.Title)
			return nil
		}
	}
	e.Logger.V(0).Infof(" • [%d/%d] %s ...", n, of, s.Title)
	ev.Kind = timeline.StepStart
	e.event(ev)
	start := time.Now()
	err := execute(ctx, s, e)
	ev.Kind, ev.Outcome = timeline.StepEnd, outcome(err)
	ev.Attrs = map[string]string{"seconds": fmt.Sprintf("%.1f", time.Since(start).Seconds())}
	if err != nil {
		ev.Message = err.Error()
		e.event(ev)
		undo(s, e)
		return fmt.Errorf("step %d (%s): %w\n(after fixing the cause, resume with --from-step %s)", n, s.Name, err, s.Name)
	}
	e.event(ev)
	e.Logger.V(0).Infof(" ✓ [%d/%d] %s (%s)", n, of, s.Title, time.Since(start).Round(100*time.Millisecond))
	return nil
}

func execute(ctx context.Context, s *Step, e *Env) error {
	if s.Pre != nil {
		if err := s.Pre(ctx, e); err != nil {
			return fmt.Errorf("precondition: %w", err)
		}
	}
	if s.Do != nil {
		if err := s.Do(ctx, e); err != nil {
			return err
		}
	}
	if s.Wait.Until == nil {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, s.Wait.Timeout)
	defer cancel()
	if err := e.poll(wctx, s.Wait.Until); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("waiting for %s (timeout %s): %w", s.Wait.Name, s.Wait.Timeout, err)
	}
	return nil
}

// undo reverts a failed step with a fresh context: the run's may be what
// was cancelled.
func undo(s *Step, e *Env) {
	if s.Undo == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.Spec.Intervals.Of(IntervalUndo))
	defer cancel()
	e.Logger.V(0).Infof(" • undoing %s ...", s.Name)
	if err := s.Undo(ctx, e); err != nil {
		e.Logger.Warnf("undoing %s failed: %v", s.Name, err)
	}
}

func outcome(err error) string {
	switch {
	case err == nil:
		return timeline.OK
	case errors.Is(err, context.Canceled):
		return timeline.Interrupted
	default:
		return timeline.Failed
	}
}
