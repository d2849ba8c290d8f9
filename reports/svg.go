package reports

import (
	"fmt"
	"hash/fnv"
	"html"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/verify/checks"
	"github.com/handover-sh/handover/verify/timeline"
)

// Colours of the timeline, also what the screenshot test looks for.
const (
	ColorKCM       = "#1f77b4"
	ColorCCM       = "#ff7f0e"
	ColorViolation = "#dc0000"
	colorProbeBad  = "#d62728"
	colorProbeOK   = "#2ca02c"
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

// timelineSVG draws steps, leases, each controller per manager, probes and
// violations on one time axis.
func timelineSVG(r Report) string {
	p := &plot{from: r.Start, to: r.End, y: 24}
	p.axis()
	p.steps(r.Events)
	p.leases(r.Events)
	p.controllers(r)
	p.probes(r.Events)
	for _, res := range r.Results {
		top, bottom := 24, p.y
		if s, ok := p.spans[res.Subject]; ok {
			top, bottom = s[0], s[1]
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

func (p *plot) probes(evs []timeline.Event) {
	byTarget := map[string][]timeline.Event{}
	var order []string
	for _, e := range evs {
		if e.Kind != timeline.Probe {
			continue
		}
		k := e.Attrs["kind"] + " " + e.Attrs["target"]
		if _, ok := byTarget[k]; !ok {
			order = append(order, k)
		}
		byTarget[k] = append(byTarget[k], e)
	}
	sort.Strings(order)
	for _, k := range order {
		top := p.y
		y := p.lane("probe " + k)
		ps := byTarget[k]
		p.bar(y, ps[0].Time, ps[len(ps)-1].Time, colorProbeOK, k)
		for _, e := range ps {
			if e.Attrs["ok"] != "true" {
				p.bar(y, e.Time, e.Time.Add(250*time.Millisecond), colorProbeBad, clockOf(e.Time)+" "+e.Attrs["error"])
			}
		}
		p.endLane()
		p.mark(ps[0].Attrs["target"], top)
	}
}

func clockOf(t time.Time) string { return t.UTC().Format("15:04:05.000") }
