package observe

import (
	"context"
	"sort"
	"strings"

	"github.com/handover-sh/handover/timeline"
)

// Growing is a Reach whose sampled managers can grow while observing.
type Growing interface {
	Add(ManagerURL) bool
}

// rediscover finds the managers again at each change of their pods and
// samples the new ones from then on, recording them (observer.managers).
func (ob *Observer) rediscover(ctx context.Context, changed <-chan struct{}) {
	g, ok := ob.o.Reach.(Growing)
	if !ok || ob.o.Rediscover == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		found, err := ob.o.Rediscover(ctx)
		if err != nil {
			if ctx.Err() == nil && ob.o.Logger != nil {
				ob.o.Logger.Warnf("finding the managers again: %v", err)
			}
			continue
		}
		var added []string
		for _, m := range found {
			if g.Add(m) {
				added = append(added, m.Endpoint.Manager+"@"+m.Endpoint.Instance)
			}
		}
		if len(added) > 0 && ctx.Err() == nil {
			sort.Strings(added)
			if ob.o.Logger != nil {
				ob.o.Logger.V(0).Infof("found %s while observing: sampled from now on", strings.Join(added, ", "))
			}
			ob.emit(timeline.Event{Kind: timeline.ManagersFound, Source: "observer", Attrs: map[string]string{timeline.FixedManagers: strings.Join(added, ",")}})
		}
	}
}
