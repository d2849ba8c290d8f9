// Package interrupt turns the signals a user or a CI runner sends into a
// cancelled context, so a run stops its work and cleans up: the first
// SIGINT, SIGTERM or SIGHUP cancels; another exits at once, or, in a
// process that holds a cluster, as soon as the cleanup that must outlive
// the process has been started (a runner's cancel is SIGTERM, then SIGKILL
// a few seconds later: whatever was not started by then is left to the
// next run's prune). A process a signal
// stopped exits 128 + the signal's number, as a shell reports one the
// signal killed.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
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
	left    func() []string
	wait    time.Duration // startWait

	mu       sync.Mutex
	sig      os.Signal // the first stop signal
	awaited  bool      // the command waits for a stop signal as its end
	expected bool      // sig came while awaited
}

// Option adjusts a Handler.
type Option func(*Handler)

// WithLeftovers names what the next run (or `handover cluster prune`)
// removes should the process exit now: the clusters it holds. Only then do
// the signals speak of a cleanup, and a second one wait for it to start.
func WithLeftovers(left func() []string) Option {
	return func(h *Handler) { h.left = left }
}

// Notify returns a context cancelled by the first stop signal, a handler,
// and a stop function that restores the default signal behaviour. exit
// ends the process (os.Exit in main).
func Notify(parent context.Context, out io.Writer, exit func(int), opts ...Option) (context.Context, *Handler, func()) {
	h := &Handler{started: make(chan struct{}), exit: exit, out: out, left: func() []string { return nil }, wait: startWait}
	for _, o := range opts {
		o(h)
	}
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
		h.first(s)
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

func (h *Handler) first(s os.Signal) {
	h.mu.Lock()
	h.sig, h.expected = s, h.awaited
	h.mu.Unlock()
	if len(h.left()) == 0 {
		fmt.Fprintf(h.out, "\n%s: stopping (send it again to exit at once)\n", s)
		return
	}
	fmt.Fprintf(h.out, "\n%s: stopping and cleaning up (send it again to exit once the cleanup has started)\n", s)
}

func (h *Handler) second(s os.Signal) {
	left := h.left()
	if len(left) == 0 {
		fmt.Fprintf(h.out, "%s again: exiting\n", s)
		h.exit(Code(s))
		return
	}
	select {
	case <-h.started:
		fmt.Fprintf(h.out, "%s again: exiting; the cleanup goes on in the background\n", s)
	case <-time.After(h.wait):
		fmt.Fprintf(h.out, "%s again: exiting before the cleanup started; the next run (or `handover cluster prune`) removes what is left of %s\n", s, clusters(left))
	}
	h.exit(Code(s))
}

func clusters(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return "cluster " + quoted[0]
	}
	return "clusters " + strings.Join(quoted, ", ")
}

// Code is the exit status of a process that signal s stopped: 128 + its
// number (SIGHUP 129, SIGINT 130, SIGTERM 143).
func Code(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
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

// Awaited says the command now waits for a stop signal as its normal end
// (observe's window, until Ctrl-C): a signal from now on ends it as asked,
// and the command's own result is the exit status.
func (h *Handler) Awaited() {
	if h != nil {
		h.mu.Lock()
		h.awaited = true
		h.mu.Unlock()
	}
}

// Interrupted is the exit status of a process whose work a stop signal
// interrupted (Code of the first), and whether one did: not when none came,
// nor when it came as the end the command awaited.
func (h *Handler) Interrupted() (int, bool) {
	if h == nil {
		return 0, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sig == nil || h.expected {
		return 0, false
	}
	return Code(h.sig), true
}
