package engine

import (
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/events"
)

// trustedSet returns a set whose stream is connected and settled.
func trustedSet(t *testing.T, f *fakeAPI) *Set {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &Set{api: f, selector: "l=v", settle: 0, pids: map[string]int{}, stop: cancel}
	go s.follow(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		up := !s.trustAfter.IsZero()
		s.mu.Unlock()
		if up {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatal("event stream never connected")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSetListsOnceUntilAnEvent(t *testing.T) {
	f := newFake("cp1", "cp2")
	s := trustedSet(t, f)
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		if all, err := s.List(ctx); err != nil || len(all) != 2 {
			t.Fatalf("List = %v, %v", all, err)
		}
		if _, err := s.PID(ctx, "cp1"); err != nil {
			t.Fatal(err)
		}
	}
	if lists, inspects := f.counts(); lists != 1 || inspects != 1 {
		t.Fatalf("100 polls cost %d lists and %d inspects, want 1 and 1", lists, inspects)
	}
	gen, _ := s.Generation(ctx)

	f.add("cp3", "running", 300)
	start := events.Message{Action: events.ActionStart, Actor: events.Actor{ID: "id-cp3"}}
	f.events <- start
	f.events <- start // received only once the first was handled
	all, err := s.List(ctx)
	if err != nil || len(all) != 3 || all[2].Name != "cp3" {
		t.Fatalf("after a start event List = %v, %v", all, err)
	}
	if lists, _ := f.counts(); lists != 2 {
		t.Fatalf("an event should cost one list, got %d lists", lists)
	}
	if g, _ := s.Generation(ctx); g == gen {
		t.Fatal("generation did not change with the set")
	}
}

func TestSetListsEveryReadWhileStreamIsDown(t *testing.T) {
	f := newFake("cp1")
	s := trustedSet(t, f)
	ctx := context.Background()
	_, _ = s.List(ctx)
	f.errs <- context.Canceled // the stream breaks
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		down := s.trustAfter.IsZero()
		s.mu.Unlock()
		if down {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("stream failure not noticed")
		}
		time.Sleep(time.Millisecond)
	}
	before, _ := f.counts()
	_, _ = s.List(ctx)
	_, _ = s.List(ctx)
	if after, _ := f.counts(); after-before != 2 {
		t.Fatalf("with no stream each read must list: %d lists for 2 reads", after-before)
	}
}

func TestSetInvalidateAndMissing(t *testing.T) {
	f := newFake("w1")
	s := trustedSet(t, f)
	ctx := context.Background()
	if _, ok, _ := s.Get(ctx, "w2"); ok {
		t.Fatal("found a container that does not exist")
	}
	f.add("w2", "exited", 0)
	s.Invalidate()
	c, ok, err := s.Get(ctx, "w2")
	if err != nil || !ok || c.Running() {
		t.Fatalf("Get(w2) = %+v, %v, %v; want a stopped container", c, ok, err)
	}
	if _, err := s.PID(ctx, "w2"); err == nil {
		t.Fatal("a stopped container has no PID")
	}
}
