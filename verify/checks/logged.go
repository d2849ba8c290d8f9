package checks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// maxLoggedCited bounds the distinct logged errors a violation cites.
const maxLoggedCited = 3

// loggedGroup is one error a manager logged, again and again: its first
// and latest lines within a window and how many lines in all.
type loggedGroup struct {
	first, latest timeline.Event
	lines         int
}

// loggedErrors are the errors the managers logged (manager.error) from
// from to to that match selects, as evidence in the provider's own words:
// the latest line of each (manager, source, message), the most recent
// limit of them, newest last. A controller's failure that posts no Event (the
// route controller's) is said only there; absent, nothing is cited.
func loggedErrors(evs []timeline.Event, from, to time.Time, match func(source, message string) bool, limit int) []string {
	groups := map[[3]string]*loggedGroup{}
	for _, e := range evs {
		src, msg := e.Attrs["source"], e.Attrs["message"]
		if e.Kind != timeline.ManagerError || e.Time.Before(from) || e.Time.After(to) || !match(src, msg) {
			continue
		}
		k := [3]string{e.Manager, src, msg}
		g := groups[k]
		if g == nil {
			g = &loggedGroup{first: e, latest: e}
			groups[k] = g
		}
		if e.Time.Before(g.first.Time) {
			g.first = e
		}
		if !e.Time.Before(g.latest.Time) {
			g.latest = e
		}
		// Each line written stands for the lines folded into it too.
		n, _ := strconv.Atoi(e.Attrs["repeats"])
		g.lines += 1 + max(n, 0)
	}
	all := make([]*loggedGroup, 0, len(groups))
	for _, g := range groups {
		// The first line's repeats were folded before it: not since.
		n, _ := strconv.Atoi(g.first.Attrs["repeats"])
		g.lines -= max(n, 0)
		all = append(all, g)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].latest.Time.Before(all[j].latest.Time) })
	if len(all) > limit {
		all = all[len(all)-limit:]
	}
	out := make([]string, 0, len(all))
	for _, g := range all {
		out = append(out, g.String())
	}
	return out
}

// String: "10:23:01 cloud-controller-manager logged (route_controller.go:119,
// 14 more since 10:16:31): Couldn't reconcile node routes: ...".
func (g loggedGroup) String() string {
	where := g.latest.Attrs["source"]
	if g.lines > 1 {
		where += fmt.Sprintf(", %d more since %s", g.lines-1, clock(g.first.Time))
	}
	return fmt.Sprintf("%s %s logged (%s): %s", clock(g.latest.Time), g.latest.Manager, where, g.latest.Attrs["message"])
}

// bySource selects the errors logged from one source file (klog's
// file:line, any line of it).
func bySource(file string) func(source, message string) bool {
	return func(source, _ string) bool { return strings.HasPrefix(source, file+":") }
}

// naming selects the errors whose message names an object (a Service as
// namespace/name, a Node) as a whole word: "default/web" is not named by
// "default/web-2".
func naming(service string) func(source, message string) bool {
	return func(_, message string) bool {
		for i := 0; service != ""; {
			j := strings.Index(message[i:], service)
			if j < 0 {
				return false
			}
			at := i + j
			end := at + len(service)
			if (at == 0 || !nameByte(message[at-1])) && (end == len(message) || !nameByte(message[end])) {
				return true
			}
			i = at + 1
		}
		return false
	}
}

// nameByte is a byte of a Kubernetes name, or the slash that joins a
// namespace to one.
func nameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '.' || b == '/'
}
