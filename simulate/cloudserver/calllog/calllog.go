// Package calllog is a provider face's log of the calls it answered: one
// JSON line per call beside the cloud's audit, with the refusals and the
// actions the face does not serve, which never reach the cloud's own
// audit. Each face has its own record (its protocol's fields); they share
// what a log needs of one (Entry).
package calllog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/handover-sh/handover/internal/privatefs"
)

// Entry is what the log reads of a face's record.
type Entry interface {
	// At is when the call was answered.
	At() time.Time
	// Of is the service and action it was a call of.
	Of() (service, action string)
	// Refused: it was answered with an error.
	Refused() bool
	// NotServed: the real API serves it, the face does not.
	NotServed() bool
}

// Log appends every call answered to its file, and counts the ones the
// face does not serve.
type Log[R Entry] struct {
	mu            sync.Mutex
	file          *os.File
	unimplemented map[string]int
}

// Open opens (or continues) the log at path; what names the log in errors
// ("the AWS call log").
func Open[R Entry](path, what string) (*Log[R], error) {
	f, err := privatefs.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", what, err)
	}
	return &Log[R]{file: f, unimplemented: map[string]int{}}, nil
}

// Record appends r; a write that fails is lost, never the call.
func (l *Log[R]) Record(r R) {
	raw, _ := json.Marshal(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.NotServed() {
		service, action := r.Of()
		l.unimplemented[service+":"+action]++
	}
	_, _ = l.file.Write(append(raw, '\n'))
}

// Unimplemented are the actions called that the face does not serve, with
// how often.
func (l *Log[R]) Unimplemented() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.unimplemented)
}

// Close closes the file.
func (l *Log[R]) Close() error { return l.file.Close() }

// ActionCount is what a face answered for one action.
type ActionCount struct {
	Service, Action string
	Calls, Refused  int // refused: answered with an error
	Unimplemented   bool
}

// Summarize counts the calls a log at path recorded from since on, per
// action, sorted by service and action. A missing log is no calls.
func Summarize[R Entry](path, what string, since time.Time) ([]ActionCount, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]*ActionCount{}
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var r R
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading %s %s: %w", what, path, err)
		}
		if r.At().Before(since) {
			continue
		}
		service, action := r.Of()
		c := counts[service+":"+action]
		if c == nil {
			c = &ActionCount{Service: service, Action: action}
			counts[service+":"+action] = c
		}
		c.Calls++
		if r.Refused() {
			c.Refused++
		}
		c.Unimplemented = c.Unimplemented || r.NotServed()
	}
	out := make([]ActionCount, 0, len(counts))
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, *counts[k])
	}
	return out, nil
}
