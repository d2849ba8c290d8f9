package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Writer appends events as JSON lines; safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	c    io.Closer
	now  func() time.Time
	err  error
	subs []func(Event)
}

// Subscribe calls f with every event written from now on, after it is
// written (fault schedules follow the runner's steps this way). f runs
// under the writer's lock: it must not block or write.
func (w *Writer) Subscribe(f func(Event)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.subs = append(w.subs, f)
}

// NewWriter writes to w; events without a time get the current UTC time.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, now: func() time.Time { return time.Now().UTC() }}
}

// Create opens (appending) the timeline file at path. A symbolic link
// there is refused, not followed: handover runs as root, and the
// directory may be shared.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("opening timeline: %s is a symbolic link: remove it and run again", path)
		}
		return nil, fmt.Errorf("opening timeline: %w", err)
	}
	w := NewWriter(f)
	w.c = f
	return w, nil
}

// Write records e. The first error is kept and returned by every later call
// and by Close, so a full disk is not silently ignored.
func (w *Writer) Write(e Event) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if e.Time.IsZero() {
		e.Time = w.now()
	}
	b, err := json.Marshal(e)
	if err != nil {
		w.err = fmt.Errorf("encoding timeline event: %w", err)
		return w.err
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		w.err = fmt.Errorf("writing timeline: %w", err)
	}
	for _, f := range w.subs {
		f(e)
	}
	return w.err
}

// Close closes the file Create opened.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil {
		if err := w.c.Close(); err != nil && w.err == nil {
			w.err = err
		}
		w.c = nil
	}
	return w.err
}
