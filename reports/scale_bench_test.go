package reports

import (
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// scaleTimeline is a timeline the size a scale rehearsal writes: nodes
// simulated nodes joining and being initialised, lbs load balancers, the
// managers' health and metrics sampled every half second on three control
// planes, three API servers probed as often, and the cloud answering both
// managers at 10 calls a second (a tenth throttled), for d.
func scaleTimeline(nodes, lbs int, d time.Duration) []timeline.Event {
	evs := []timeline.Event{{Time: at(0), Source: "observer", Kind: timeline.ObserverStart},
		{Time: at(0), Source: "scale", Kind: timeline.ScaleStart, Attrs: map[string]string{"nodes": strconv.Itoa(nodes), "services": strconv.Itoa(lbs), "throttleQPS": "10"}}}
	half := d.Seconds() / 2
	for s := 0.0; s < d.Seconds(); s += 0.5 {
		kcm, ccm := "service-lb-controller,node-route-controller,cloud-node-lifecycle-controller", ""
		if s > half {
			kcm, ccm = "", "service-lb-controller,node-route-controller,cloud-node-lifecycle-controller,cloud-node-controller"
		}
		for cp := range 3 {
			inst := fmt.Sprintf("cp%d", cp)
			evs = append(evs,
				timeline.Event{Time: at(s), Source: "health", Kind: timeline.Health, Manager: "kube-controller-manager", Instance: inst, Attrs: map[string]string{"up": "true", "controllers": kcm}},
				timeline.Event{Time: at(s), Source: "health", Kind: timeline.Health, Manager: "cloud-controller-manager", Instance: inst, Attrs: map[string]string{"up": "true", "controllers": ccm}},
				timeline.Event{Time: at(s), Source: "metrics", Kind: timeline.Metrics, Manager: "kube-controller-manager", Instance: inst, Attrs: map[string]string{"up": "true", "controllers": kcm}},
				timeline.Event{Time: at(s), Source: "probe", Kind: timeline.Probe, Attrs: map[string]string{"target": "api/" + inst, "ok": "true", "latency_ms": "3"}})
		}
		for c := range 10 {
			mgr, status := "kube-controller-manager", "200"
			if s > half {
				mgr = "cloud-controller-manager"
			}
			if c == 0 {
				status = "429"
			}
			evs = append(evs, timeline.Event{Time: at(s), Source: "cloud-audit", Kind: timeline.CloudCall, Manager: mgr, Controller: "node-route-controller",
				Attrs: map[string]string{"operation": "CreateRoute", "resource": "r" + strconv.Itoa(c), "status": status}})
		}
	}
	for i := range nodes {
		name, t := fmt.Sprintf("sim-node-%04d", i), d.Seconds()*float64(i)/float64(nodes)
		mode, taints := "in-tree", ""
		if t > half {
			mode, taints = "external", "node.cloudprovider.kubernetes.io/uninitialized"
		}
		evs = append(evs, timeline.Event{Time: at(t), Source: "scale", Kind: timeline.ScaleJoin, Node: name, Attrs: map[string]string{"mode": mode}},
			timeline.Event{Time: at(t + 1), Source: "nodes", Kind: timeline.NodeAdded, Node: name, Attrs: map[string]string{"providerID": "", "taints": taints}},
			timeline.Event{Time: at(t + 5), Source: "nodes", Kind: timeline.NodeChanged, Node: name, Attrs: map[string]string{"providerID": "kind://docker/c/" + name, "taints": "", "podCIDRs": fmt.Sprintf("10.%d.%d.0/24", 240+i/256, i%256)}})
	}
	for i := range lbs {
		evs = append(evs, timeline.Event{Time: at(1), Source: "cloud", Kind: timeline.LBCreated, Attrs: map[string]string{"name": "lb" + strconv.Itoa(i), "service": "handover-scale/scale-" + strconv.Itoa(i)}})
	}
	return append(evs, timeline.Event{Time: at(d.Seconds()), Source: "observer", Kind: timeline.ObserverStop})
}

// BenchmarkCheckAndRenderAtScale times what a scale rehearsal's end costs:
// every check over the timeline, then all three reports. docs/measurements.md's
// scale section gives its figures at each size.
func BenchmarkCheckAndRenderAtScale(b *testing.B) {
	for _, size := range []struct{ nodes, lbs int }{{100, 25}, {250, 50}, {500, 100}} {
		evs := scaleTimeline(size.nodes, size.lbs, 20*time.Minute)
		b.Run(fmt.Sprintf("nodes=%d/events=%d", size.nodes, len(evs)), func(b *testing.B) {
			for b.Loop() {
				cfg, err := ConfigFor(evs)
				if err != nil {
					b.Fatal(err)
				}
				r := New("scale", evs, cfg)
				if err := WriteJUnit(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				if err := WriteMarkdown(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				if err := WriteHTML(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
