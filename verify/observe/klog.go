package observe

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// klogLine is one line of a manager's log in klog's text format.
type klogLine struct {
	severity byte // I, W, E or F
	at       time.Time
	ok       bool   // at was read from the header
	source   string // file:line
	message  string
}

// klogHeader is k8s.io/klog/v2's text header (internal/buffer
// FormatHeader, read at v2.130.1): Lmmdd hh:mm:ss.uuuuuu threadid
// file:line] msg, the thread id padded to 7. A line without it (a JSON log
// line, a message's continuation line) is none.
var klogHeader = regexp.MustCompile(`^([IWEF])(\d{4} \d{2}:\d{2}:\d{2}\.\d{6})\s+\d+ ([^\s\]]+:\d+)\] (.*)$`)

// parseKlog reads a klog header line. klog writes no year: the time is
// put in the year around ref (the observation's start) that brings it
// nearest, so a line of 31 December read on 1 January is last year's.
// klog writes the process's local time, which a manager's container
// keeps in UTC.
func parseKlog(line string, ref time.Time) (klogLine, bool) {
	m := klogHeader.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return klogLine{}, false
	}
	l := klogLine{severity: m[1][0], source: m[3], message: m[4]}
	if t, err := time.Parse("0102 15:04:05.000000", m[2]); err == nil {
		l.at, l.ok = nearestYear(t, ref.UTC()), true
	}
	return l, true
}

// nearestYear is t (whose year is unknown) in ref's year, the one before
// or the one after, whichever is nearest ref.
func nearestYear(t, ref time.Time) time.Time {
	best := time.Time{}
	for _, y := range []int{ref.Year() - 1, ref.Year(), ref.Year() + 1} {
		c := time.Date(y, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		if best.IsZero() || c.Sub(ref).Abs() < best.Sub(ref).Abs() {
			best = c
		}
	}
	return best
}

// maxMessage bounds a logged error's or an Event's message on the
// timeline: a provider's error may quote a whole API response.
const maxMessage = 600

// clip cuts s to at most maxMessage characters, the last an ellipsis.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxMessage {
		return s
	}
	return string([]rune(s)[:maxMessage-1]) + "…"
}
