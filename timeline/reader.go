package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// maxLine bounds one event; observers never write anything near it.
const maxLine = 1 << 20

// MaxFile bounds a timeline file ReadFile reads: 256 MiB. The largest
// rehearsal measured, 500 simulated nodes and 100 Services, wrote 9.4 MB
// (30 k events, docs/measurements.md); a default rehearsal writes a few
// thousand events. The reports' benchmark timeline (health, metrics and
// API probes of three control planes every half second, ten cloud calls a
// second) is 54 k events in 20 minutes: at that rate and 300 bytes an
// event, about five hours of one observation fit. The checks hold every
// event read, about 2 KB each as they run, so the bound is also what
// reading costs a runner's memory at most (some 2 GB).
const MaxFile = 256 << 20

// LineError is what is wrong with one line of a timeline.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("timeline line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Read parses a timeline. Blank lines are allowed; anything else that is not
// an event, or that no run of handover can write (validate.go, runs.go,
// steps.go, once.go), is a
// *LineError naming its line. The events before it are returned with it.
func Read(r io.Reader) ([]Event, error) { return read(r, time.Now()) }

// read is Read with the reader's clock, against which times from the
// future are judged.
func read(r io.Reader, now time.Time) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	v := newValidator(now)
	var out []Event
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := parse(line)
		if err == nil {
			err = v.check(n, line, e)
		}
		if err != nil {
			return out, &LineError{Line: n, Err: err}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading timeline after line %d: %w", n, err)
	}
	return out, nil
}

func parse(line []byte) (Event, error) {
	var e Event
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, err
	}
	if dec.More() {
		return e, fmt.Errorf("more than one JSON value on the line")
	}
	switch {
	case e.Time.IsZero():
		return e, fmt.Errorf("event has no time")
	case e.Kind == "":
		return e, fmt.Errorf("event has no kind")
	case e.Source == "":
		return e, fmt.Errorf("event has no source")
	}
	return e, nil
}

// ReadFile reads the timeline at path: a regular file of at most MaxFile
// bytes (a FIFO or a device is refused at once, never waited on).
func ReadFile(path string) ([]Event, error) { return ReadFileFrom(path, 0) }

// ReadFileFrom reads the timeline at path from byte offset on: what was
// written after an earlier writer's last line (offset is then the file's
// size before this writer began).
func ReadFileFrom(path string, offset int64) ([]Event, error) {
	f, err := boundedfile.Open(path, MaxFile)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading %s from byte %d: %w", path, offset, err)
	}
	evs, err := Read(f)
	if err != nil && offset > 0 {
		return nil, fmt.Errorf("from byte %d: %w", offset, err)
	}
	return evs, err
}
