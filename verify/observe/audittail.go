package observe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
)

// followAudit reads every API server's audit log as it grows and records
// the cloud controllers' writes. Logs present at the start are read from
// their end; those of API servers that join later, from their beginning.
func (ob *Observer) followAudit(ctx context.Context) {
	if ob.o.Reach == nil {
		return
	}
	tails := map[string]*auditTail{}
	first := true
	every(ctx, ob.o.HealthEvery, func(ctx context.Context) {
		for _, l := range ob.o.Reach.AuditLogs() {
			t := tails[l.Instance]
			if t == nil {
				t = &auditTail{log: l, fromEnd: first}
				tails[l.Instance] = t
			}
			for _, line := range t.poll(ctx) {
				if e, ok := auditWrite(line, l.Instance); ok {
					ob.emit(e)
				}
			}
		}
		first = false
	})
}

// maxAuditRead bounds one poll's read of one log.
const maxAuditRead = 8 << 20

// auditTail follows one API server's audit log.
type auditTail struct {
	log     AuditLog
	fromEnd bool // start at the end of the log the first time it is seen
	opened  bool
	ino     uint64
	offset  int64
	partial []byte
}

// poll returns the complete lines written since the last poll.
func (t *auditTail) poll(ctx context.Context) [][]byte {
	data, err := t.readFrom(ctx)
	if err != nil {
		if t.log.Lost != nil {
			t.log.Lost()
		}
		return nil
	}
	data = append(t.partial, data...)
	last := bytes.LastIndexByte(data, '\n')
	t.partial = append([]byte(nil), data[last+1:]...)
	if last < 0 {
		return nil
	}
	return bytes.Split(data[:last], []byte{'\n'})
}

func (t *auditTail) readFrom(ctx context.Context) ([]byte, error) {
	f, err := t.log.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return t.read(f)
}

// read returns what was appended to f's file since the last read, starting
// over when the file was rotated or truncated.
func (t *auditTail) read(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	ino := uint64(0)
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	switch {
	case !t.opened && t.fromEnd:
		t.offset = st.Size()
	case t.opened && (ino != t.ino || st.Size() < t.offset):
		t.offset, t.partial = 0, nil
	}
	t.opened, t.ino = true, ino
	n := st.Size() - t.offset
	if n <= 0 {
		return nil, nil
	}
	if n > maxAuditRead {
		n = maxAuditRead
	}
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, t.offset)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	t.offset += int64(got)
	return buf[:got], nil
}
