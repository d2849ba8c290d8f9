package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/events"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/engine/enginetest"
)

// connectedSet returns a set whose event stream is connected and settled.
func connectedSet(t *testing.T, f *enginetest.Fake) *engine.Set {
	t.Helper()
	s := engine.NewSet(t.Context(), f, "l=v", engine.WithSettle(0))
	deadline := time.Now().Add(5 * time.Second)
	for !s.Connected() {
		if time.Now().After(deadline) {
			t.Fatal("event stream never connected")
		}
		time.Sleep(time.Millisecond)
	}
	return s
}

func TestSetListsOnceUntilAnEvent(t *testing.T) {
	f := enginetest.New("cp1", "cp2")
	s := connectedSet(t, f)
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		if all, err := s.List(ctx); err != nil || len(all) != 2 {
			t.Fatalf("List = %v, %v", all, err)
		}
		if _, err := s.PID(ctx, "cp1"); err != nil {
			t.Fatal(err)
		}
	}
	if c := f.Calls(); c.List != 1 || c.Inspect != 1 {
		t.Fatalf("100 polls cost %d lists and %d inspects, want 1 and 1", c.List, c.Inspect)
	}

	f.Add("cp3", "running", 300, nil)
	start := events.Message{Action: events.ActionStart, Actor: events.Actor{ID: "id-cp3"}}
	f.Send <- start
	f.Send <- start // received only once the first was handled
	all, err := s.List(ctx)
	if err != nil || len(all) != 3 || all[2].Name != "cp3" {
		t.Fatalf("after a start event List = %v, %v", all, err)
	}
	if c := f.Calls(); c.List != 2 {
		t.Fatalf("an event should cost one list, got %d lists", c.List)
	}
}

func TestSetListsEveryReadWhileStreamIsDown(t *testing.T) {
	f := enginetest.New("cp1")
	s := connectedSet(t, f)
	ctx := context.Background()
	_, _ = s.List(ctx)
	f.Errs <- context.Canceled // the stream breaks
	deadline := time.Now().Add(5 * time.Second)
	for s.Connected() {
		if time.Now().After(deadline) {
			t.Fatal("stream failure not noticed")
		}
		time.Sleep(time.Millisecond)
	}
	before := f.Calls().List
	_, _ = s.List(ctx)
	_, _ = s.List(ctx)
	if after := f.Calls().List; after-before != 2 {
		t.Fatalf("with no stream each read must list: %d lists for 2 reads", after-before)
	}
}

func TestSetInvalidateAndMissing(t *testing.T) {
	f := enginetest.New("w1")
	s := connectedSet(t, f)
	ctx := context.Background()
	if _, ok, _ := s.Get(ctx, "w2"); ok {
		t.Fatal("found a container that does not exist")
	}
	f.Add("w2", "exited", 0, nil)
	s.Invalidate()
	c, ok, err := s.Get(ctx, "w2")
	if err != nil || !ok || c.Running() {
		t.Fatalf("Get(w2) = %+v, %v, %v; want a stopped container", c, ok, err)
	}
	if _, err := s.PID(ctx, "w2"); err == nil {
		t.Fatal("a stopped container has no PID")
	}
}

// Running asks the engine: a container that stopped without the event
// reaching the cache yet is not running, and the cache lists again.
func TestSetRunningAsksTheEngine(t *testing.T) {
	f := enginetest.New("w1")
	s := connectedSet(t, f)
	ctx := context.Background()
	if c, _, _ := s.Get(ctx, "w1"); !c.Running() {
		t.Fatal("w1 is listed as not running")
	}
	if up, err := s.Running(ctx, "w1"); err != nil || !up {
		t.Fatalf("Running(w1) = %t, %v; want running", up, err)
	}
	f.SetState("w1", "exited")
	if c, _, _ := s.Get(ctx, "w1"); !c.Running() {
		t.Fatal("the cache was to believe w1 runs (no event)")
	}
	if up, err := s.Running(ctx, "w1"); err != nil || up {
		t.Fatalf("Running(w1) = %t, %v; want stopped", up, err)
	}
	if c, _, _ := s.Get(ctx, "w1"); c.Running() {
		t.Fatal("the cache kept w1 running after the engine said it stopped")
	}
	if up, err := s.Running(ctx, "gone"); err != nil || up {
		t.Fatalf("Running(gone) = %t, %v; want not running", up, err)
	}
}
