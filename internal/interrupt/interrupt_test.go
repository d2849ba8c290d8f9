package interrupt

import (
	"bytes"
	"context"
	"sync"
	"syscall"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// The first signal cancels; the second exits once the cleanup has started,
// not before (a SIGHUP counts like the others).
func TestSecondSignalExitsOnceCleanupStarted(t *testing.T) {
	var out lockedBuffer
	exited := make(chan int, 1)
	ctx, h, stop := Notify(context.Background(), &out, func(code int) { exited <- code })
	defer stop()

	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGHUP did not cancel")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		t.Fatalf("exited with %d before the cleanup started", code)
	case <-time.After(300 * time.Millisecond):
	}
	h.CleanupStarted()
	select {
	case code := <-exited:
		if code != 130 {
			t.Fatalf("exit code %d, want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not exit")
	}
}
