package boundedfile

import (
	"fmt"
	"io"
	"os"
)

// Stream is a regular file opened by Open, read as a stream: a read that
// would take it past its limit fails with ErrTooLarge, as the file may
// grow while it is read (a timeline another process still appends to).
type Stream struct {
	f     *os.File
	path  string
	limit int64
	pos   int64 // the offset of the next read
}

// Open opens the regular file at path (a symbolic link to one is fine) to
// be read a part at a time, refusing at once what Read refuses but for an
// empty file, which a stream's reader judges: a FIFO or a device is
// never waited on, and a file of more than limit bytes is never read.
func Open(path string, limit int64) (*Stream, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkStream(path, fi, limit); err != nil {
		return nil, err
	}
	f, _, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	return &Stream{f: f, path: path, limit: limit}, nil
}

// Read reads on from the stream's offset, up to its limit.
func (s *Stream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	// One byte beyond the limit is read to tell a file of exactly limit
	// bytes from a larger one.
	if room := s.limit + 1 - s.pos; int64(len(p)) > room {
		p = p[:max(room, 0)]
	}
	if len(p) == 0 {
		return 0, s.grew()
	}
	n, err := s.f.Read(p)
	s.pos += int64(n)
	if s.pos > s.limit {
		return n, s.grew()
	}
	return n, err
}

func (s *Stream) grew() error {
	return fmt.Errorf("%s is %w: it grew past the %s handover reads while it was read", s.path, ErrTooLarge, size(s.limit))
}

// Seek sets the offset of the next read, as os.File's does.
func (s *Stream) Seek(offset int64, whence int) (int64, error) {
	pos, err := s.f.Seek(offset, whence)
	if err != nil {
		return pos, fmt.Errorf("%s: %w", s.path, err)
	}
	s.pos = pos
	return pos, nil
}

// Close closes the file.
func (s *Stream) Close() error { return s.f.Close() }

var _ io.ReadSeekCloser = (*Stream)(nil)
