package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

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
