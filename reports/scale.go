package reports

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/handover-sh/handover/verify/scalestat"
)

// scaleFigures are a scale rehearsal's figures as tables: node
// initialisation by mode, and cloud calls by manager.
func scaleFigures(s scalestat.Summary) []table {
	nodes := table{header: []string{"registered by", "nodes", "to ProviderID p50 / p90 / max", "to initialised p50 / p90 / max", "never initialised"}}
	for _, l := range s.Latencies {
		nodes.rows = append(nodes.rows, []string{modeName(l.Mode), fmt.Sprint(l.Nodes), spreadText(l.ProviderID), spreadText(l.Initialised), fmt.Sprint(l.Unfinished)})
	}
	calls := table{header: []string{"manager", "cloud calls", "throttled", "peak calls / minute"}}
	for _, c := range s.Calls {
		calls.rows = append(calls.rows, []string{c.Manager, fmt.Sprint(c.Total), fmt.Sprintf("%d (%s)", c.Throttled, percent(c.Throttled, c.Total)), fmt.Sprint(peak(c.PerMinute))})
	}
	return []table{nodes, calls}
}

func scaleHeading(s scalestat.Summary) string {
	return fmt.Sprintf("Scale: %d simulated nodes, %d Services, cloud %s", s.Nodes, s.Services, throttleText(s.ThrottleQPS))
}

const nothingMeasured = "No simulated node was seen joining: nothing measured."

// scaleTables is the scale section of summary.md.
func scaleTables(s scalestat.Summary) string {
	var b strings.Builder
	b.WriteString("\n## " + scaleHeading(s) + "\n\n")
	if len(s.Fleet) == 0 {
		return b.String() + nothingMeasured + "\n"
	}
	for _, t := range scaleFigures(s) {
		b.WriteString(t.markdown() + "\n")
	}
	return b.String() + reconcileText(s.Reconcile) + "\n"
}

func modeName(mode string) string {
	if mode == scalestat.InTree {
		return "in-tree kubelet"
	}
	return "cloud-controller-manager (external kubelet)"
}

func spreadText(s scalestat.Spread) string {
	if s == (scalestat.Spread{}) {
		return "–"
	}
	r := func(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
	return r(s.P50) + " / " + r(s.P90) + " / " + r(s.Max)
}

func percent(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(of))
}

func peak(per []int) int {
	m := 0
	for _, n := range per {
		m = max(m, n)
	}
	return m
}

// throttleText is the cloud's per-caller limit as the heading says it.
func throttleText(qps string) string {
	if qps == "" || qps == "0" {
		return "not throttled"
	}
	return "throttled at " + qps + " QPS per caller"
}

func reconcileText(r scalestat.Reconcile) string {
	switch {
	case r.HandOff.IsZero():
		return "Load balancers after the hand-off: not measured (the cloud-controller-manager was never seen running the service controller)."
	case r.LBs == 0:
		return "Load balancers after the hand-off: not measured (none existed at the hand-off)."
	case len(r.Outstanding) > 0:
		return fmt.Sprintf("Load balancers after the hand-off (%s): %d of %d reconciled by the cloud-controller-manager within the %s observed after it; not within it: %s (observe longer with --observe-after).",
			r.HandOff.UTC().Format("15:04:05"), r.Done, r.LBs, r.Observed.Round(time.Second), strings.Join(r.Outstanding, ", "))
	}
	return fmt.Sprintf("Load balancers after the hand-off (%s): all %d reconciled by the cloud-controller-manager within %s.",
		r.HandOff.UTC().Format("15:04:05"), r.LBs, r.All.Round(100*time.Millisecond))
}

// scaleHTML is the scale section of report.html: the tables and plots of
// each node's wait for initialisation and of the cloud calls.
func scaleHTML(s scalestat.Summary) string {
	var b strings.Builder
	b.WriteString("<h2>" + html.EscapeString(scaleHeading(s)) + "</h2>\n")
	if len(s.Fleet) == 0 {
		return b.String() + "<p>" + nothingMeasured + "</p>\n"
	}
	for _, t := range scaleFigures(s) {
		b.WriteString(t.html())
	}
	b.WriteString("<p>" + html.EscapeString(reconcileText(s.Reconcile)) + "</p>\n")
	b.WriteString(initPlot(s))
	b.WriteString(callsPlot(s.Calls))
	return b.String()
}

// Colours of the plot's two modes.
var modeColor = map[string]string{scalestat.InTree: "#1f77b4", scalestat.External: "#ff7f0e"}

// initPlot plots every simulated node: when it joined (x) against how long
// it waited to be initialised (y); a node never initialised sits on the
// top edge in red.
func initPlot(s scalestat.Summary) string {
	const w, h, left, bottom = 900, 260, 60, 30
	if len(s.Fleet) == 0 {
		return ""
	}
	var last time.Time
	var most time.Duration
	for _, n := range s.Fleet {
		if n.Joined.After(last) {
			last = n.Joined
		}
		if !n.Initialised.IsZero() {
			most = max(most, n.Initialised.Sub(n.Joined))
		}
	}
	span := max(last.Sub(s.Start), time.Second)
	most = max(most, time.Second)
	x := func(t time.Time) float64 { return left + float64(w-left-10)*float64(t.Sub(s.Start))/float64(span) }
	y := func(d time.Duration) float64 {
		return float64(h-bottom) - float64(h-bottom-10)*float64(d)/float64(most)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="scale-plot" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/><line x1="%d" y1="10" x2="%d" y2="%d" stroke="#999"/>`+"\n", left, h-bottom, w-10, h-bottom, left, left, h-bottom)
	fmt.Fprintf(&b, `<text x="4" y="14">%s</text><text x="4" y="%d">0</text><text x="%d" y="%d" text-anchor="end">joined at +%s (blue: in-tree kubelet, orange: cloud-controller-manager, red: never)</text>`+"\n",
		most.Round(time.Second), h-bottom, w-10, h-8, span.Round(time.Second))
	for _, n := range s.Fleet {
		color, wait := modeColor[n.Mode], n.Initialised.Sub(n.Joined)
		if n.Initialised.IsZero() {
			color, wait = ColorViolation, most
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s (%s): %s</title></circle>`+"\n",
			x(n.Joined), y(wait), color, html.EscapeString(n.Name), n.Mode, waitText(n))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func waitText(n scalestat.Node) string {
	if n.Initialised.IsZero() {
		return "never initialised"
	}
	return "initialised after " + n.Initialised.Sub(n.Joined).Round(100*time.Millisecond).String()
}

// callsPlot draws each manager's cloud calls per minute of the
// observation, the throttled part of each bar in red.
func callsPlot(calls []scalestat.Calls) string {
	const w, laneH, left = 900, 70, 170
	minutes, most := 0, 1
	for _, c := range calls {
		minutes = max(minutes, len(c.PerMinute))
		most = max(most, peak(c.PerMinute))
	}
	if minutes == 0 {
		return ""
	}
	barW := float64(w-left-10) / float64(minutes)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="scale-calls" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", w, laneH*len(calls)+20)
	for i, c := range calls {
		base := float64(laneH*(i+1) - 5)
		fmt.Fprintf(&b, `<text x="4" y="%.0f">%s</text>`+"\n", base-laneH/2, html.EscapeString(c.Manager))
		for m, n := range c.PerMinute {
			x, h, t := float64(left)+float64(m)*barW, float64(laneH-15)*float64(n)/float64(most), float64(laneH-15)*float64(c.Throttles[m])/float64(most)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#1f77b4"><title>minute %d: %d calls, %d throttled</title></rect>`+"\n",
				x, base-h, max(barW-1, 1), h, m+1, n, c.Throttles[m])
			if t > 0 {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x, base-t, max(barW-1, 1), t, ColorViolation)
			}
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">cloud calls per minute (tallest %d; red: throttled)</text>`+"\n", w-10, laneH*len(calls)+15, most)
	b.WriteString("</svg>\n")
	return b.String()
}
