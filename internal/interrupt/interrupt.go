// Package interrupt turns the signals a user or a CI runner sends into a
// cancelled context, so a run stops its work and cleans up: the first
// SIGINT, SIGTERM or SIGHUP cancels; another exits at once, as soon as the
// cleanup that must outlive the process has been started (a runner's
// cancel is SIGTERM, then SIGKILL a few seconds later: whatever was not
// started by then is left to the next run's prune).
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Signals are the ones that stop a run.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// startWait bounds how long a second signal waits for the cleanup to start.
const startWait = 3 * time.Second

// Handler is the process's answer to stop signals.
type Handler struct {
	started chan struct{}
	once    sync.Once
	exit    func(int)
	out     io.Writer
}

// Notify returns a context cancelled by the first stop signal, a handler,
// and a stop function that restores the default signal behaviour. exit
// ends the process (os.Exit in main).
func Notify(parent context.Context, out io.Writer, exit func(int)) (context.Context, *Handler, func()) {
	h := &Handler{started: make(chan struct{}), exit: exit, out: out}
	ctx, cancel := context.WithCancel(context.WithValue(parent, handlerKey{}, h))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, Signals...)
	done := make(chan struct{})
	go h.loop(sigs, cancel, done)
	return ctx, h, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

func (h *Handler) loop(sigs <-chan os.Signal, cancel context.CancelFunc, done <-chan struct{}) {
	select {
	case s := <-sigs:
		fmt.Fprintf(h.out, "\n%s: stopping and cleaning up (send it again to exit once the cleanup has started)\n", s)
		cancel()
	case <-done:
		return
	}
	select {
	case s := <-sigs:
		h.second(s)
	case <-done:
	}
}

func (h *Handler) second(s os.Signal) {
	select {
	case <-h.started:
		fmt.Fprintf(h.out, "%s again: exiting; the cleanup goes on in the background\n", s)
	case <-time.After(startWait):
		fmt.Fprintf(h.out, "%s again: exiting before the cleanup started; the next run (or `handover cluster prune`) removes what is left\n", s)
	}
	h.exit(130)
}

type handlerKey struct{}

// FromContext is the handler of a context made by Notify, or nil (whose
// methods do nothing).
func FromContext(ctx context.Context) *Handler {
	h, _ := ctx.Value(handlerKey{}).(*Handler)
	return h
}

// CleanupStarted says the cleanup that outlives this process runs: a
// second signal may now exit at once.
func (h *Handler) CleanupStarted() {
	if h != nil {
		h.once.Do(func() { close(h.started) })
	}
}
