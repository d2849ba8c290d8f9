package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// fakeObservers record only their stop, as the real ones end with
// observer.stop.
type fakeObservers struct{ tl *timeline.Writer }

func (f fakeObservers) Stop() {
	_ = f.tl.Write(timeline.Event{Source: "observer", Kind: timeline.ObserverStop})
}

func TestObserveWindowEndsItsRun(t *testing.T) {
	var buf bytes.Buffer
	tl := timeline.NewWriter(&buf)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the window is over at once: --for elapsed, or Ctrl-C
	start := func(context.Context) (stopper, error) { return fakeObservers{tl}, nil }
	if err := observeWindow(ctx, tl, "observed c", []string{"service-lb-controller"}, start); err != nil {
		t.Fatal(err)
	}
	evs, err := timeline.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, " "); got != "run.start run.end observer.stop" {
		t.Fatalf("events %s, want the run closed before the observers stop", got)
	}
	if rs := checks.CheckProcedures(evs, checks.Config{}); len(rs) != 1 || !rs[0].Passed {
		t.Fatalf("procedure check: %+v", rs)
	}
}

func TestObserveWindowWithoutObservers(t *testing.T) {
	var buf bytes.Buffer
	tl := timeline.NewWriter(&buf)
	start := func(context.Context) (stopper, error) { return nil, errors.New("no cluster") }
	if err := observeWindow(context.Background(), tl, "observed c", nil, start); err == nil || !strings.Contains(err.Error(), "no cluster") {
		t.Fatalf("want the observers' error, got %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("a run was recorded though nothing was observed: %s", buf.String())
	}
}

// One observation, one timeline: a second observation into the same --out
// is refused before anything is observed, and with --append it is judged
// alone, never with the evidence (or the holes) of the one before.
func TestObservingTwiceIntoOneOut(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "timeline.jsonl")
	first, err := timeline.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first observation was killed: its run never ended.
	if err := first.Write(timeline.Event{Source: "observer", Kind: timeline.RunStart, Message: "observed a"}); err != nil {
		t.Fatal(err)
	}
	first.Close()
	before, _ := os.ReadFile(path)

	_, err = runCLIOut(t, "observe", "--name", "no-such-cluster", "--out", dir, "--for", "1s")
	if err == nil || !strings.Contains(err.Error(), "already holds an observation") || !strings.Contains(err.Error(), "--append") {
		t.Fatalf("a second observation into %s: %v", dir, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatalf("the refused observation changed the timeline:\n%s", after)
	}

	from, err := observationStart(dir, true)
	if err != nil || from != int64(len(before)) {
		t.Fatalf("--append starts at %d (%v), want %d", from, err, len(before))
	}
	second, err := timeline.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := observeWindow(ctx, second, "observed b", nil, func(context.Context) (stopper, error) { return fakeObservers{second}, nil }); err != nil {
		t.Fatal(err)
	}
	second.Close()

	alone, err := timeline.ReadFileFrom(path, from)
	if err != nil {
		t.Fatal(err)
	}
	if rs := checks.CheckProcedures(alone, checks.Config{}); len(rs) != 1 || !rs[0].Passed || !strings.Contains(rs[0].Subject+rs[0].Summary, "observed b") {
		t.Fatalf("the appended observation judged alone: %+v", rs)
	}
	all, err := timeline.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rs := checks.CheckProcedures(all, checks.Config{}); len(rs) < 2 {
		t.Fatalf("the whole file should hold both runs (the killed one too): %+v", rs)
	}
}

// observe takes only what it reads of a procedure (which cluster, whose
// controllers count as migrated, the migration lease): none of the flags
// only a run of it reads, such as --mistake, --rollback and --ccm-manifest.
func TestObserveTakesNoRunFlags(t *testing.T) {
	var run pflag.FlagSet
	(&specFlags{}).addRun(&run)
	for _, name := range []string{"mistake", "rollback", "ccm-manifest"} {
		if run.Lookup(name) == nil {
			t.Fatalf("--%s is no longer a run's flag: this test checks nothing", name)
		}
	}
	root := newRootCommand()
	observe, _, err := root.Find([]string{"observe"})
	if err != nil {
		t.Fatal(err)
	}
	run.VisitAll(func(f *pflag.Flag) {
		if observe.Flags().Lookup(f.Name) != nil {
			t.Errorf("observe takes --%s, which only migrate, plan and rehearse read", f.Name)
		}
	})
	for _, name := range []string{"name", "procedure", "leader-name"} {
		if observe.Flags().Lookup(name) == nil {
			t.Errorf("observe lacks --%s", name)
		}
	}
	if err := runCLI(t, "observe", "--mistake", "no-ccm"); exitcode.Of(err) != exitcode.BadInput || !strings.Contains(errString(err), "unknown flag: --mistake") {
		t.Errorf("observe --mistake: %v", err)
	}
}
