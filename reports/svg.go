package reports

import (
	"fmt"
	"hash/fnv"
	"html"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// Colours of the timeline, also what the screenshot test looks for.
const (
	ColorKCM       = "#1f77b4"
	ColorCCM       = "#ff7f0e"
	ColorViolation = "#dc0000"
	colorProbeBad  = "#d62728"
	colorProbeOK   = "#2ca02c"
	colorEvidence  = "#9aa5b1"
	colorProbeIdle = "#c9c9c9"
)

var managerColor = map[string]string{"kube-controller-manager": ColorKCM, "cloud-controller-manager": ColorCCM}

const (
	labelW  = 300
	plotW   = 900
	laneH   = 16
	laneGap = 6
)

type plot struct {
	from, to time.Time
	b        strings.Builder
	y        int
	// spans are the vertical extents of each subject's lanes, so a
	// violation is drawn over its own lanes.
	spans map[string][2]int
}

func (p *plot) mark(subject string, top int) {
	if p.spans == nil {
		p.spans = map[string][2]int{}
	}
	s, ok := p.spans[subject]
	if !ok {
		s[0] = top
	}
	s[1] = p.y - laneGap
	p.spans[subject] = s
}

func (p *plot) x(t time.Time) float64 {
	total := p.to.Sub(p.from).Seconds()
	if total <= 0 {
		return labelW
	}
	f := t.Sub(p.from).Seconds() / total
	if f < 0 {
		f = 0
	}
	if f > 1 {
		f = 1
	}
	return labelW + f*plotW
}

func (p *plot) lane(name string) int {
	y := p.y
	fmt.Fprintf(&p.b, `<g class="lane" data-lane="%s"><text x="4" y="%d" font-size="11">%s</text>`, html.EscapeString(name), y+12, html.EscapeString(name))
	fmt.Fprintf(&p.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#f4f5f7"/>`, labelW, y, plotW, laneH)
	p.y += laneH + laneGap
	return y
}

func (p *plot) endLane() { p.b.WriteString("</g>\n") }

func (p *plot) bar(y int, from, to time.Time, color, title string) {
	x1, x2 := p.x(from), p.x(to)
	if x2-x1 < 1 {
		x2 = x1 + 1
	}
	fmt.Fprintf(&p.b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
		x1, y+2, x2-x1, laneH-4, color, html.EscapeString(title))
}

// timelineSVG draws steps, leases, each controller per manager, probes by
// kind, evidence per observer and violations on one time axis.
func timelineSVG(r Report) string {
	p := &plot{from: r.Start, to: r.End, y: 24}
	p.axis()
	p.steps(r.Events)
	p.leases(r.Events)
	p.controllers(r)
	p.probes(r.Events)
	p.evidence(r.Events)
	p.violations(r.Results, false)
	return p.svg()
}

// violations draws each result's violations over its subject's lanes;
// a subject without lanes gets the whole height, unless onlyMarked.
func (p *plot) violations(results []checks.Result, onlyMarked bool) {
	for _, res := range results {
		top, bottom := 24, p.y
		if s, ok := p.spans[res.Subject]; ok {
			top, bottom = s[0], s[1]
		} else if onlyMarked {
			continue
		}
		for _, v := range res.Violations {
			x1, x2 := p.x(v.From), p.x(v.To)
			if x2-x1 < 2 {
				x2 = x1 + 2
			}
			fmt.Fprintf(&p.b, `<rect class="violation" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" fill-opacity="0.3" stroke="%s"><title>%s</title></rect>`+"\n",
				x1, top, x2-x1, bottom-top, ColorViolation, ColorViolation, html.EscapeString(res.Check+" "+res.Subject+": "+v.Message))
		}
	}
}

func (p *plot) svg() string {
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">`+"\n%s</svg>",
		labelW+plotW+20, p.y+10, p.b.String())
}

func (p *plot) axis() {
	total := p.to.Sub(p.from)
	step := niceStep(total)
	for t := time.Duration(0); t <= total; t += step {
		x := p.x(p.from.Add(t))
		fmt.Fprintf(&p.b, `<line x1="%.1f" y1="14" x2="%.1f" y2="20" stroke="#888"/><text x="%.1f" y="11" font-size="10" text-anchor="middle">%s</text>`+"\n",
			x, x, x, p.from.Add(t).UTC().Format("15:04:05"))
	}
}

func niceStep(total time.Duration) time.Duration {
	for _, s := range []time.Duration{5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute} {
		if total/s <= 12 {
			return s
		}
	}
	return 30 * time.Minute
}

func (p *plot) steps(evs []timeline.Event) {
	y := -1
	start := map[string]time.Time{}
	n := 0
	for _, e := range evs {
		if e.Kind == timeline.StepStart {
			start[e.Step] = e.Time
		}
		if e.Kind != timeline.StepEnd {
			continue
		}
		if y < 0 {
			y = p.lane("procedure steps")
		}
		color := []string{"#9aa5b1", "#c5ccd3"}[n%2]
		if e.Outcome != timeline.OK {
			color = ColorViolation
		}
		p.bar(y, start[e.Step], e.Time, color, fmt.Sprintf("%d. %s (%s)", e.Index, e.Step, e.Outcome))
		n++
	}
	if y >= 0 {
		p.endLane()
	}
}

func (p *plot) leases(evs []timeline.Event) {
	type seg struct {
		holder string
		from   time.Time
	}
	byLease := map[string][]seg{}
	for _, e := range evs {
		if e.Kind == timeline.Lease {
			byLease[e.Attrs["lease"]] = append(byLease[e.Attrs["lease"]], seg{e.Attrs["holder"], e.Time})
		}
	}
	names := make([]string, 0, len(byLease))
	for n := range byLease {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		y := p.lane("lease " + n)
		segs := byLease[n]
		for i, s := range segs {
			end := p.to
			if i+1 < len(segs) {
				end = segs[i+1].from
			}
			if s.holder != "" {
				p.bar(y, s.from, end, holderColor(s.holder), "held by "+s.holder)
			}
		}
		p.endLane()
	}
}

func holderColor(h string) string {
	f := fnv.New32a()
	_, _ = f.Write([]byte(strings.SplitN(h, "_", 2)[0]))
	return fmt.Sprintf("hsl(%d,45%%,60%%)", f.Sum32()%360)
}

func (p *plot) controllers(r Report) {
	act := checks.Activity(r.Events)
	var names []string
	seen := map[string]bool{}
	for _, res := range r.Results {
		if res.Check == checks.MutualExclusion && !seen[res.Subject] {
			seen[res.Subject] = true
			names = append(names, res.Subject)
		}
	}
	for _, c := range names {
		top := p.y
		for _, m := range []string{"kube-controller-manager", "cloud-controller-manager"} {
			y := p.lane(c + " @ " + short(m))
			for _, iv := range act[c] {
				if iv.Manager == m {
					p.bar(y, iv.From, iv.To, managerColor[m], m+"@"+iv.Instance)
				}
			}
			p.endLane()
		}
		p.mark(c, top)
	}
}

func short(m string) string {
	return map[string]string{"kube-controller-manager": "KCM", "cloud-controller-manager": "CCM"}[m]
}

// probeTargets are the probes by "kind target", targets in natural order
// (churn-2 before churn-10).
func probeTargets(evs []timeline.Event) (map[string][]timeline.Event, []string) {
	byTarget := map[string][]timeline.Event{}
	for _, e := range evs {
		if e.Kind == timeline.Probe {
			k := e.Attrs["kind"] + " " + e.Attrs["target"]
			byTarget[k] = append(byTarget[k], e)
		}
	}
	order := make([]string, 0, len(byTarget))
	for k := range byTarget {
		order = append(order, k)
	}
	sort.Slice(order, func(i, j int) bool { return naturalLess(order[i], order[j]) })
	return byTarget, order
}

// probes draws one lane per kind of probe: each target's bars as
// targetBars draws them, the targets' violations over it.
// Each target's own lane is in the detail (probeDetailSVG).
func (p *plot) probes(evs []timeline.Event) {
	byTarget, order := probeTargets(evs)
	kinds := map[string][]string{}
	var kindOrder []string
	for _, k := range order {
		kind, _, _ := strings.Cut(k, " ")
		if _, ok := kinds[kind]; !ok {
			kindOrder = append(kindOrder, kind)
		}
		kinds[kind] = append(kinds[kind], k)
	}
	for _, kind := range kindOrder {
		top := p.y
		y := p.lane(fmt.Sprintf("%s probes (%d targets)", kind, len(kinds[kind])))
		for _, k := range kinds[kind] {
			p.targetBars(y, k, byTarget[k])
		}
		p.endLane()
		for _, k := range kinds[kind] {
			p.mark(byTarget[k][0].Attrs["target"], top)
		}
	}
}

// probeSpan is how long probe i of a target stands for: until the target's
// next probe (the observers' period, whatever it was), or as long as the
// one before it for the last.
func probeSpan(ps []timeline.Event, i int) time.Duration {
	var d time.Duration
	switch {
	case i+1 < len(ps):
		d = ps[i+1].Time.Sub(ps[i].Time)
	case i > 0:
		d = ps[i].Time.Sub(ps[i-1].Time)
	}
	if d <= 0 {
		d = minProbeSpan
	}
	return d
}

// minProbeSpan keeps a lone probe's bar visible.
const minProbeSpan = 250 * time.Millisecond

// targetBars draws a target's probes: red where it failed between two
// answers (what availability judges), grey where it had not answered yet
// (joining) or did not any more (removed, or never came back).
func (p *plot) targetBars(y int, k string, ps []timeline.Event) {
	p.bar(y, ps[0].Time, ps[len(ps)-1].Time, colorProbeOK, k)
	var first, last time.Time
	for _, e := range ps {
		if e.Attrs["ok"] == "true" {
			if first.IsZero() {
				first = e.Time
			}
			last = e.Time
		}
	}
	for i, e := range ps {
		if e.Attrs["ok"] == "true" {
			continue
		}
		color, note := colorProbeBad, ""
		if first.IsZero() || e.Time.Before(first) {
			color, note = colorProbeIdle, " (before its first answer)"
		} else if e.Time.After(last) {
			color, note = colorProbeIdle, " (after its last answer)"
		}
		p.bar(y, e.Time, e.Time.Add(probeSpan(ps, i)), color, k+" "+clockOf(e.Time)+" "+e.Attrs["error"]+note)
	}
}

// probeDetailSVG has a lane per probe target, for the report's
// expandable detail.
func probeDetailSVG(r Report) string {
	p := &plot{from: r.Start, to: r.End, y: 24}
	p.axis()
	byTarget, order := probeTargets(r.Events)
	for _, k := range order {
		top := p.y
		y := p.lane("probe " + k)
		p.targetBars(y, k, byTarget[k])
		p.endLane()
		p.mark(byTarget[k][0].Attrs["target"], top)
	}
	p.violations(r.Results, true)
	return p.svg()
}

// evidence draws a lane per observer: when it recorded anything (a
// poller's samples merged within its hole tolerance, an event-driven
// observer's events as ticks); the evidence check's violations fall on it.
func (p *plot) evidence(evs []timeline.Event) {
	for _, c := range checks.Coverage(evs) {
		top := p.y
		y := p.lane(fmt.Sprintf("evidence: %s (%d)", c.Name, c.Events))
		for _, s := range c.Spans {
			p.bar(y, s[0], s[1], colorEvidence, c.Name+" "+clockOf(s[0])+" – "+clockOf(s[1]))
		}
		p.endLane()
		p.mark(c.Name, top)
	}
}

// naturalLess orders strings with their digit runs compared as numbers.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitPrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func clockOf(t time.Time) string { return t.UTC().Format("15:04:05.000") }
