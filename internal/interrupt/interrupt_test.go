package interrupt

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/internal/testenv"
)

func holding(names ...string) Option {
	return WithLeftovers(func() []string { return names })
}

func withStartWait(d time.Duration) Option { return func(h *Handler) { h.wait = d } }

func send(t *testing.T, s syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(syscall.Getpid(), s); err != nil {
		t.Fatal(err)
	}
}

func cancelled(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the signal did not cancel")
	}
}

func exitCode(t *testing.T, exited <-chan int) int {
	t.Helper()
	select {
	case code := <-exited:
		return code
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not exit")
		return 0
	}
}

// The first signal cancels; the second exits once the cleanup has started,
// not before (a SIGHUP counts like the others), with 128 + its number.
func TestSecondSignalExitsOnceCleanupStarted(t *testing.T) {
	var out testenv.LockedBuffer
	exited := make(chan int, 1)
	ctx, h, stop := Notify(context.Background(), &out, func(code int) { exited <- code }, holding("c"))
	defer stop()

	send(t, syscall.SIGHUP)
	cancelled(t, ctx)
	send(t, syscall.SIGTERM)
	select {
	case code := <-exited:
		t.Fatalf("exited with %d before the cleanup started", code)
	case <-time.After(300 * time.Millisecond):
	}
	h.CleanupStarted()
	if code := exitCode(t, exited); code != 143 {
		t.Fatalf("exit code %d, want 143 (SIGTERM)", code)
	}
	if code, ok := h.Interrupted(); code != 129 || !ok {
		t.Fatalf("interrupted %d %v, want 129 (the first signal, SIGHUP)", code, ok)
	}
	if got := out.String(); !strings.Contains(got, "cleaning up") || !strings.Contains(got, "goes on in the background") {
		t.Fatalf("said %q", got)
	}
}

// A process that holds a cluster and exits before its cleanup started says
// which cluster the next run removes.
func TestSecondSignalNamesWhatIsLeft(t *testing.T) {
	var out testenv.LockedBuffer
	exited := make(chan int, 1)
	ctx, _, stop := Notify(context.Background(), &out, func(code int) { exited <- code }, holding("rehearsal"), withStartWait(50*time.Millisecond))
	defer stop()
	send(t, syscall.SIGINT)
	cancelled(t, ctx)
	send(t, syscall.SIGINT)
	if code := exitCode(t, exited); code != 130 {
		t.Fatalf("exit code %d, want 130 (SIGINT)", code)
	}
	if got := out.String(); !strings.Contains(got, "the next run (or `handover cluster prune`) removes what is left of cluster \"rehearsal\"") {
		t.Fatalf("said %q", got)
	}
}

// A process that holds nothing speaks of no cleanup and no next run, and a
// second signal exits at once.
func TestNothingHeldNothingLeft(t *testing.T) {
	var out testenv.LockedBuffer
	exited := make(chan int, 1)
	ctx, _, stop := Notify(context.Background(), &out, func(code int) { exited <- code })
	defer stop()
	send(t, syscall.SIGTERM)
	cancelled(t, ctx)
	start := time.Now()
	send(t, syscall.SIGTERM)
	if code := exitCode(t, exited); code != 143 {
		t.Fatalf("exit code %d, want 143", code)
	}
	if waited := time.Since(start); waited >= startWait {
		t.Fatalf("waited %s for a cleanup that nothing starts", waited)
	}
	if got := out.String(); strings.Contains(got, "clean") || strings.Contains(got, "next run") {
		t.Fatalf("a process that made nothing said %q", got)
	}
}

// A signal the command awaits as its end (observe until Ctrl-C) leaves the
// command's own result as the exit status; any other is an interruption.
func TestAnAwaitedSignalIsNoInterruption(t *testing.T) {
	for _, c := range []struct {
		sig     syscall.Signal
		awaited bool
		code    int
	}{{syscall.SIGINT, false, 130}, {syscall.SIGTERM, false, 143}, {syscall.SIGHUP, false, 129}, {syscall.SIGINT, true, 0}} {
		ctx, h, stop := Notify(context.Background(), &testenv.LockedBuffer{}, func(int) {})
		if c.awaited {
			h.Awaited()
		}
		send(t, c.sig)
		cancelled(t, ctx)
		stop()
		if code, ok := h.Interrupted(); code != c.code || ok != (c.code != 0) {
			t.Errorf("%v (awaited %v): interrupted %d %v, want %d", c.sig, c.awaited, code, ok, c.code)
		}
	}
	var none *Handler
	if _, ok := none.Interrupted(); ok {
		t.Error("no handler, interrupted")
	}
}
