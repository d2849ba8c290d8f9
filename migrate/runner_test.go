package migrate

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/timeline"
)

// fakeStep records what the runner does with it.
type fakeStep struct {
	done, failDo, holds bool
	did, undid          int
}

func (f *fakeStep) step(name string) Step {
	return Step{Name: name, Title: name,
		Done: func(context.Context, *Env) (bool, error) { return f.done, nil },
		Do: func(context.Context, *Env) error {
			f.did++
			if f.failDo {
				return errors.New("boom")
			}
			f.done = true
			return nil
		},
		Wait: Wait{Name: "holds", Timeout: 50 * time.Millisecond, Until: func(context.Context, *Env) (bool, error) {
			return f.done || f.holds, nil
		}},
		Undo: func(context.Context, *Env) error { f.undid++; return nil },
	}
}

func fakeEnv() (*Env, *bytes.Buffer) {
	var buf bytes.Buffer
	return &Env{Spec: Spec{Procedure: "fake"}, Logger: log.NoopLogger{}, Timeline: timeline.NewWriter(&buf), Poll: 10 * time.Millisecond}, &buf
}

func kinds(t *testing.T, buf *bytes.Buffer) string {
	t.Helper()
	evs, err := timeline.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		s := e.Kind
		if e.Step != "" {
			s += ":" + e.Step
		}
		if e.Outcome != "" {
			s += "=" + e.Outcome
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestRunSkipsDoneStepsAndRecordsEvents(t *testing.T) {
	a, b := &fakeStep{done: true}, &fakeStep{}
	p := &Procedure{Name: "fake", Steps: []Step{a.step("a"), b.step("b")}}
	e, buf := fakeEnv()
	if err := Run(context.Background(), p, e, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if a.did != 0 || b.did != 1 {
		t.Fatalf("a ran %d times, b %d", a.did, b.did)
	}
	want := "run.start step.skipped:a=already-done step.start:b step.end:b=ok run.end=ok"
	if got := kinds(t, buf); got != want {
		t.Fatalf("timeline\n got %s\nwant %s", got, want)
	}
	// Re-running a finished procedure is a no-op.
	if err := Run(context.Background(), p, e, RunOptions{}); err != nil || b.did != 1 {
		t.Fatalf("re-run: err %v, b ran %d times", err, b.did)
	}
}

func TestRunFailureUndoesAndStops(t *testing.T) {
	a, b, c := &fakeStep{}, &fakeStep{failDo: true}, &fakeStep{}
	p := &Procedure{Name: "fake", Steps: []Step{a.step("a"), b.step("b"), c.step("c")}}
	e, buf := fakeEnv()
	err := Run(context.Background(), p, e, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "step 2 (b)") || !strings.Contains(err.Error(), "--from-step b") {
		t.Fatalf("want a failure naming step b and how to resume, got %v", err)
	}
	if b.undid != 1 || a.undid != 0 || c.did != 0 {
		t.Fatalf("undo b=%d a=%d, c ran %d", b.undid, a.undid, c.did)
	}
	if got := kinds(t, buf); !strings.Contains(got, "step.end:b=failed run.end=failed") {
		t.Fatalf("timeline: %s", got)
	}
}

func TestRunWaitTimesOutWithItsName(t *testing.T) {
	f := &fakeStep{}
	st := f.step("a")
	st.Do = func(context.Context, *Env) error { return nil } // never holds
	e, _ := fakeEnv()
	err := Run(context.Background(), &Procedure{Name: "fake", Steps: []Step{st}}, e, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "waiting for holds (timeout 50ms)") {
		t.Fatalf("want the named wait in the error, got %v", err)
	}
}

func TestRunRangeAndInterrupt(t *testing.T) {
	steps := []*fakeStep{{}, {}, {}, {}}
	p := &Procedure{Name: "fake"}
	for i, f := range steps {
		p.Steps = append(p.Steps, f.step(string(rune('a'+i))))
	}
	e, _ := fakeEnv()
	if err := Run(context.Background(), p, e, RunOptions{From: "b", Until: "c"}); err != nil {
		t.Fatal(err)
	}
	if steps[0].did+steps[3].did != 0 || steps[1].did != 1 || steps[2].did != 1 {
		t.Fatalf("range b..c ran %d %d %d %d", steps[0].did, steps[1].did, steps[2].did, steps[3].did)
	}
	for _, o := range []RunOptions{{From: "x"}, {Until: "y"}, {From: "c", Until: "b"}} {
		if err := Run(context.Background(), p, e, o); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
	// Interrupted between steps, then resumed: everything completes once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, p, e, RunOptions{}); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("want interrupted, got %v", err)
	}
	if err := Run(context.Background(), p, e, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, f := range steps {
		if f.did != 1 {
			t.Errorf("step %d ran %d times", i, f.did)
		}
	}
}

// What the runner writes over a range, an interruption, a resumption and
// a failure is a timeline the reader accepts, each run declaring the
// procedure's steps and its range.
func TestRunTimelineDeclaresItsSteps(t *testing.T) {
	steps := []*fakeStep{{}, {}, {}, {failDo: true}}
	p := &Procedure{Name: "fake"}
	for i, f := range steps {
		p.Steps = append(p.Steps, f.step(string(rune('a'+i))))
	}
	e, buf := fakeEnv()
	_ = Run(context.Background(), p, e, RunOptions{From: "b", Until: "c"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = Run(ctx, p, e, RunOptions{})
	if err := Run(context.Background(), p, e, RunOptions{}); err == nil {
		t.Fatal("step d should have failed")
	}
	evs, err := timeline.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, ev := range evs {
		if ev.Kind == timeline.RunStart {
			runs = append(runs, ev.Attrs[timeline.RunSteps]+" "+ev.Attrs[timeline.RunFrom]+".."+ev.Attrs[timeline.RunUntil])
		}
	}
	if got, want := strings.Join(runs, "; "), "a,b,c,d b..c; a,b,c,d a..d; a,b,c,d a..d"; got != want {
		t.Fatalf("runs declare %q, want %q", got, want)
	}
}

func TestBuildRejectsContradictions(t *testing.T) {
	for name, tweak := range map[string]func(*Spec){
		"unknown procedure":     func(s *Spec) { s.Procedure = "kubeadm" },
		"in-place and rollback": func(s *Spec) { s.Variant.InPlace, s.Variant.Rollback = true, true },
		"in-place on rke2":      func(s *Spec) { s.Procedure, s.Variant.InPlace = RKE2, true },
		"from has no in-tree":   func(s *Spec) { s.From = "v1.31.4" },
		"unknown version":       func(s *Spec) { s.To = "v1.99.0" },
		"two minors apart":      func(s *Spec) { s.From = "v1.29.15" },
		"backwards":             func(s *Spec) { s.To = "v1.29.15" },
		"bad flavour":           func(s *Spec) { s.Procedure, s.Flavour = RKE2, "gce" },
		"flavour on taskdoc":    func(s *Spec) { s.Flavour = "aws" },
	} {
		s := DefaultSpec(TaskDoc)
		tweak(&s)
		if _, err := Build(s); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestBuildAcceptsEveryPair(t *testing.T) {
	for _, p := range nodeimage.Pairs() {
		from, to, _ := strings.Cut(p, " → ")
		s := DefaultSpec(TaskDoc)
		s.From, s.To = from, to
		if _, err := Build(s); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestEveryProcedureHasNamedUniqueSteps(t *testing.T) {
	for name, tweak := range planCases {
		s := DefaultSpec(TaskDoc)
		tweak(&s)
		p, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, st := range p.Steps {
			if st.Name == "" || seen[st.Name] || strings.Contains(st.Name, ",") || st.Title == "" || len(st.Plan) == 0 {
				t.Errorf("%s: step %q: needs a unique name without a comma (run.start lists them), a title and a plan", name, st.Name)
			}
			if st.Wait.Until != nil && (st.Wait.Name == "" || st.Wait.Timeout == 0) {
				t.Errorf("%s: step %s: a wait needs a name and a timeout", name, st.Name)
			}
			seen[st.Name] = true
		}
	}
}

// handover's own configuration is safe on every pair and every procedure:
// each manager's file names the controllers as that manager calls them
// (short names before 1.28), so the lint finds nothing and predicts no
// controller in two managers and none in neither.
func TestOwnConfigurationOnEveryPair(t *testing.T) {
	for _, p := range nodeimage.Pairs() {
		from, to, _ := strings.Cut(p, " → ")
		for _, proc := range []string{TaskDoc, NodeIPAM, RKE2} {
			s := DefaultSpec(proc)
			s.From, s.To = from, to
			if proc == RKE2 {
				s.To = from // the runbook keeps the version
			}
			if n := s.Lint().Errors(); n != 0 {
				t.Errorf("%s on %s: %d lint errors:\n%s", proc, p, n, s.Lint())
			}
			if pr := s.Predict(); len(pr.Both)+len(pr.Orphaned)+len(pr.Unknown) != 0 {
				t.Errorf("%s on %s: predicted %+v", proc, p, pr)
			}
		}
	}
}
