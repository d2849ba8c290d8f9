// Package durations bounds the durations a user gives handover (flags, a
// rehearsal file's fields): each input has a range, named once in a table
// beside its reader and printed in its help, so a negative duration, or
// one that would have a run wait for years, is refused before anything
// starts.
package durations

import (
	"fmt"
	"strings"
	"time"
)

// Range is what one duration input may be: from Min to Max, both included.
type Range struct {
	Min, Max time.Duration
}

// Check refuses d outside the range, saying the range.
func (r Range) Check(d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("%s is negative: give %s", Short(d), r)
	case d < r.Min || d > r.Max:
		return fmt.Errorf("%s is out of range: give %s", Short(d), r)
	}
	return nil
}

// Parse reads a Go duration (such as 90s or 5m) within the range.
func (r Range) Parse(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is no duration: give %s, such as 90s or 5m", s, r)
	}
	return d, r.Check(d)
}

// String says the range as help text prints it: "from 0s to 30m".
func (r Range) String() string {
	return "from " + Short(r.Min) + " to " + Short(r.Max)
}

// Short prints d without trailing zero units: 30m, not 30m0s.
func Short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
