package observe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// followAudit reads every API server's audit log as it grows and records
// the cloud controllers' writes. Logs present at the start are read from
// their end; those of API servers that join later, from their beginning.
// Each log stays open between polls: a poll costs one fstat, and the lines
// an API server wrote just before its node went are still read once the
// node is gone.
func (ob *Observer) followAudit(ctx context.Context) {
	if ob.o.Reach == nil {
		return
	}
	tails := map[string]*auditTail{}
	defer func() {
		for _, t := range tails {
			t.close()
		}
	}()
	first := true
	every(ctx, ob.o.HealthEvery, func(ctx context.Context) {
		now := time.Now()
		listed := map[string]bool{}
		for _, l := range ob.o.Reach.AuditLogs() {
			listed[l.Instance] = true
			t := tails[l.Instance]
			if t == nil {
				t = &auditTail{log: l, fromEnd: first, warn: ob.warnf}
				tails[l.Instance] = t
			}
			ob.emitAudit(l.Instance, t.poll(ctx, now))
		}
		// A log no longer listed (its node went) is read to its end and
		// closed; its place is kept, so a node listed again (a listing
		// that failed once) resumes where it was rather than re-reading.
		for inst, t := range tails {
			if !listed[inst] && t.f != nil {
				ob.emitAudit(inst, t.drain())
				t.close()
			}
		}
		first = false
	})
}

// warnf says what the observer passed over, when it has a logger.
func (ob *Observer) warnf(format string, args ...any) {
	if ob.o.Logger != nil {
		ob.o.Logger.Warnf(format, args...)
	}
}

func (ob *Observer) emitAudit(instance string, lines [][]byte) {
	for _, line := range lines {
		if e, ok := auditWrite(line, instance); ok {
			ob.emit(e)
		}
	}
}

// maxAuditRead bounds one poll's read of one log.
const maxAuditRead = 8 << 20

// maxAuditLine bounds one line of an audit log. A write's event carries at
// most its request body (3 MiB, the API server's MaxRequestBodyBytes, twice
// the 1.5 MiB etcd accepts) and, at level RequestResponse, the object
// answered (at most etcd's 1.5 MiB, somewhat more as JSON): 8 MiB holds both
// with room. A longer line is no write of a manager's (a large list's
// response) or no API server's, and is skipped rather than held.
const maxAuditLine = 8 << 20

// auditReopen is how often a followed log's path is opened again, to see
// a rotation (the API server writes a new file under the old name) or a
// node container that restarted or went. Lines written to a new file wait
// at most this long; each carries its own time.
const auditReopen = 5 * time.Second

// auditTail follows one API server's audit log.
type auditTail struct {
	log     AuditLog
	fromEnd bool // start at the end of the log the first time it is seen
	f       *os.File
	checked time.Time // when the path was last opened
	ino     fileID
	offset  int64
	partial []byte
	// skipping: the line under way is longer than maxAuditLine, and is
	// passed over to its end; skipped counts such lines.
	skipping bool
	skipped  int
	refused  string                           // the refusal last named
	warn     func(format string, args ...any) // nil: no one to tell
}

type fileID struct{ dev, ino uint64 }

// poll returns the complete lines written since the last poll.
func (t *auditTail) poll(ctx context.Context, now time.Time) [][]byte {
	var ended [][]byte
	if t.f == nil || now.Sub(t.checked) >= auditReopen || now.Before(t.checked) {
		ended = t.reopen(ctx)
		t.checked = now
	}
	if t.f == nil {
		return ended
	}
	data, err := t.read()
	if err != nil {
		t.lost()
	}
	return append(ended, t.lines(data)...)
}

// reopen opens the log's path again; a file other than the one held (a
// rotation, a restarted node) is taken up from its start once the held
// one is read to its end. It returns the lines of that end.
func (t *auditTail) reopen(ctx context.Context) [][]byte {
	f, err := t.open(ctx)
	if err != nil {
		ended := t.drain()
		t.lost()
		return ended
	}
	id, size, err := stat(f)
	if err != nil {
		f.Close()
		return nil
	}
	if t.f != nil && id == t.ino {
		f.Close()
		return nil
	}
	var ended [][]byte
	if t.f != nil {
		ended = t.drain()
		t.close()
	}
	switch {
	case t.fromEnd:
		t.offset = size
	case id != t.ino: // not the file last read: from its start
		t.restart()
	}
	t.fromEnd = false
	t.f, t.ino = f, id
	return ended
}

// open opens the log's path, refusing what is not a regular file (a FIFO
// or a device planted where the log should be: one would block a read,
// the other never end) and naming each refusal once.
func (t *auditTail) open(ctx context.Context) (*os.File, error) {
	f, err := t.log.Open(ctx)
	if err == nil {
		if err = boundedfile.Regular(f); err != nil {
			f.Close()
		}
	}
	switch {
	case err == nil:
		t.refused = ""
		return f, nil
	case errors.Is(err, boundedfile.ErrNotRegular) && err.Error() != t.refused:
		t.refused = err.Error()
		if t.warn != nil {
			t.warn("audit log of %s not followed: %v", t.log.Instance, err)
		}
	}
	return nil, err
}

// rest is what the held file has beyond what was read (nil without one).
func (t *auditTail) rest() []byte {
	if t.f == nil {
		return nil
	}
	data, _ := t.read()
	return data
}

// drain returns the complete lines the held file has left: its API
// server is gone, or the file was rotated away. A last line without its
// end is a torn write, never completed.
func (t *auditTail) drain() [][]byte {
	return t.lines(t.rest())
}

// lines splits data, after what the last poll left, into complete lines,
// keeping a partial last one for the next poll. A line longer than
// maxAuditLine is skipped, counted and named, never held whole: an API
// server's line has an end, a file that never writes one must not fill
// memory.
func (t *auditTail) lines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			t.keep(data)
			break
		}
		line := data[:end]
		data = data[end+1:]
		if t.skipping { // the end of a line already skipped
			t.skipping = false
			continue
		}
		if len(t.partial) > 0 {
			line, t.partial = append(t.partial, line...), nil
		}
		if len(line) > maxAuditLine {
			t.skip()
			continue
		}
		out = append(out, line)
	}
	return out
}

// keep holds the start of a line for the next poll, up to maxAuditLine;
// beyond it the line is skipped to its end.
func (t *auditTail) keep(rest []byte) {
	switch {
	case t.skipping:
	case len(t.partial)+len(rest) > maxAuditLine:
		t.partial, t.skipping = nil, true
		t.skip()
	default:
		t.partial = append(t.partial, rest...)
	}
}

// skip counts a line too long to read and says so.
func (t *auditTail) skip() {
	t.skipped++
	if t.warn != nil {
		t.warn("audit log of %s: skipped a line longer than %d MiB (%d so far): no write of a manager's is that long", t.log.Instance, maxAuditLine>>20, t.skipped)
	}
}

// restart reads the held file again from its start.
func (t *auditTail) restart() { t.offset, t.partial, t.skipping = 0, nil, false }

// lost closes the held file after a failure; the next poll opens the path
// again, and the reach looks the node up again.
func (t *auditTail) lost() {
	t.close()
	if t.log.Lost != nil {
		t.log.Lost()
	}
}

func (t *auditTail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

func stat(f *os.File) (fileID, int64, error) {
	st, err := f.Stat()
	if err != nil {
		return fileID{}, 0, err
	}
	var id fileID
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		id = fileID{dev: uint64(sys.Dev), ino: sys.Ino}
	}
	return id, st.Size(), nil
}

// read returns what was appended to the held file since the last read,
// starting over when it was truncated.
func (t *auditTail) read() ([]byte, error) {
	_, size, err := stat(t.f)
	if err != nil {
		return nil, err
	}
	if size < t.offset {
		t.restart()
	}
	n := size - t.offset
	if n <= 0 {
		return nil, nil
	}
	if n > maxAuditRead {
		n = maxAuditRead
	}
	buf := make([]byte, n)
	got, err := t.f.ReadAt(buf, t.offset)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", t.f.Name(), err)
	}
	t.offset += int64(got)
	return buf[:got], nil
}
