package timeline

import (
	"fmt"
	"hash/maphash"
)

// lineKey tells lines apart: an event's time and a hash of its line as
// written. Two lines alike in both are one event written twice.
type lineKey struct {
	at   int64
	hash uint64
}

// lineSeed hashes the lines of every timeline read by this process.
var lineSeed = maphash.MakeSeed()

// once: no event is written twice. Every writer stamps a line when it
// writes it, to the nanosecond, or with the time the thing it records
// happened (a probe's start and a cloud call's to the nanosecond, an
// audit entry's to the microsecond), so no two lines of one timeline are
// the same, but for the kinds whose rule says they may repeat. Kinds
// handover does not write are not judged.
func (v *validator) once(n int, e Event) error {
	if r, known := kindRules[e.Kind]; !known || r.repeats {
		return nil
	}
	k := lineKey{e.Time.UnixNano(), maphash.Bytes(lineSeed, v.raw)}
	if first, again := v.lines[k]; again {
		return fmt.Errorf("this %s repeats line %d exactly: the same event written twice (no writer of handover's writes one line twice)", e.Kind, first)
	}
	v.lines[k] = n
	return nil
}
