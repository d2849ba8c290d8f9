package observe

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

const (
	// maxLogLine bounds a log line read; a longer one is skipped.
	maxLogLine = 64 << 10
	// errorEvery: the same error of one pod is written at its first
	// occurrence and then at most this often, the lines between counted
	// ("repeats"): a controller retrying every 10 s (the route
	// controller's reconciliation) fills no timeline.
	errorEvery = 30 * time.Second
	// maxFolds bounds the errors a pod's rate limit remembers: past it,
	// those last written longer than errorEvery ago are forgotten (their
	// next occurrence is written anyway; what it folded is lost).
	maxFolds = 256
)

// podLog is what was read of one pod's log: where a stream reopened
// resumes, and the rate limit of its errors.
type podLog struct {
	at    time.Time // the runtime's timestamp of the last line read
	atN   int       // lines read bearing it
	seen  int       // of those, met again in the current stream
	folds map[foldKey]*fold
}

type foldKey struct{ source, message string }

// fold is when an error was last written and the lines like it since.
type fold struct {
	written time.Time
	folded  int
}

func newPodLog() *podLog { return &podLog{folds: map[foldKey]*fold{}} }

// from is where a stream opens: where the last one was read to, else at
// start. The API's sinceTime is whole seconds: fresh drops what it brings
// again.
func (pl *podLog) from(start time.Time) time.Time {
	if pl.at.After(start) {
		return pl.at
	}
	return start
}

func (pl *podLog) reopened() { pl.seen = 0 }

// fresh splits the runtime's timestamp off a line and says whether the
// line is new: after the last one read, or one more bearing its time. A
// line without a timestamp is taken as new (at zero).
func (pl *podLog) fresh(line string) (rest string, at time.Time, ok bool) {
	ts, rest, cut := strings.Cut(line, " ")
	at, err := time.Parse(time.RFC3339Nano, ts)
	switch {
	case !cut || err != nil:
		return line, time.Time{}, true
	case at.Before(pl.at):
		return rest, at, false
	case at.Equal(pl.at):
		if pl.seen++; pl.seen <= pl.atN {
			return rest, at, false
		}
		pl.atN = pl.seen
		return rest, at, true
	}
	pl.at, pl.atN, pl.seen = at, 1, 1
	return rest, at, true
}

// logged is a klog error line as manager.error, unless the same error was
// written less than errorEvery before (by the lines' times): then it is
// counted, to be said by the next one written. The line's time is the
// runtime's (at, exact and in UTC) where the log has one, else klog's,
// which has no year and is the container's local time (ref, the
// observation's start, gives the year).
func (pl *podLog) logged(t logTarget, line string, at, ref time.Time) (timeline.Event, bool) {
	if !strings.HasPrefix(line, "E") {
		return timeline.Event{}, false // most lines: no need to parse them
	}
	l, ok := parseKlog(line, ref)
	if !ok || l.severity != 'E' || strings.TrimSpace(l.message) == "" {
		return timeline.Event{}, false
	}
	switch {
	case !at.IsZero():
		at = at.UTC()
	case l.ok:
		at = l.at
	default:
		at = time.Now().UTC()
	}
	k := foldKey{l.source, clip(l.message)}
	f := pl.folds[k]
	if f != nil && at.Sub(f.written) < errorEvery {
		f.folded++
		return timeline.Event{}, false
	}
	pl.forget(at)
	e := timeline.Event{Time: at, Source: "logs", Kind: timeline.ManagerError, Manager: t.manager, Instance: t.node,
		Attrs: map[string]string{"source": k.source, "message": k.message}}
	if f != nil && f.folded > 0 {
		e.Attrs["repeats"] = strconv.Itoa(f.folded)
	}
	pl.folds[k] = &fold{written: at}
	return e, true
}

// forget keeps the rate limit within maxFolds.
func (pl *podLog) forget(now time.Time) {
	if len(pl.folds) < maxFolds {
		return
	}
	for k, f := range pl.folds {
		if now.Sub(f.written) >= errorEvery {
			delete(pl.folds, k)
		}
	}
	if len(pl.folds) >= maxFolds {
		clear(pl.folds) // that many errors at once: write them, rather than remember more
	}
}

// eachLine calls f with each whole line of r, without its line end; a line
// longer than limit is skipped whole, not an error. A last line without
// its end (a stream cut mid-line) is not given: the next stream brings it
// whole, as it was never marked read.
func eachLine(r io.Reader, limit int, f func(string)) error {
	br := bufio.NewReaderSize(r, limit)
	skipping := false
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			skipping = true
			continue
		case skipping:
			skipping = false // the overlong line's tail
		case len(line) > 0 && line[len(line)-1] == '\n':
			f(strings.TrimRight(string(line), "\r\n"))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
