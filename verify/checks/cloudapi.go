package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/timeline"
)

// CloudAPIActions is the check that the provider code called no action the
// cloud's face of its API does not serve: such an action is answered as
// the real API answers an unknown one, so a migration that passes while
// calling it passed on a cloud that differs from the real one.
const CloudAPIActions = "cloud-api-actions"

// CheckCloudAPIActions: where a side's provider code speaks a provider's
// API (a provider.code event's "api"), the actions called were recorded
// and none was unimplemented. A timeline whose code speaks no such API has
// nothing to judge; one that does but recorded no actions is unproven.
func CheckCloudAPIActions(evs []timeline.Event, _ Config) []Result {
	api := ""
	var actions []timeline.Event
	for _, e := range evs {
		switch e.Kind {
		case timeline.ProviderCode:
			api = max(api, e.Attrs["api"])
		case timeline.CloudAPIAction:
			actions = append(actions, e)
		}
	}
	if api == "" {
		return nil
	}
	if len(actions) == 0 {
		return []Result{unproven(evs, CloudAPIActions, api, "the provider code speaks the "+api+" APIs but no call to them was recorded")}
	}
	var served []string
	calls := 0
	var out []Result
	for _, e := range actions {
		n, _ := strconv.Atoi(e.Attrs["calls"])
		calls += n
		name := e.Attrs["service"] + ":" + e.Attrs["action"]
		if e.Attrs["unimplemented"] != "true" {
			served = append(served, name)
			continue
		}
		v := Violation{From: e.Time, To: e.Time, Sources: []string{e.Source},
			Message:  fmt.Sprintf("%s called %s times, an action the simulated cloud does not serve (answered as %s answers an unknown action)", name, e.Attrs["calls"], api),
			Evidence: []string{fmt.Sprintf("%s: %s calls, %s refused", name, e.Attrs["calls"], e.Attrs["refused"])}}
		out = append(out, result(CloudAPIActions, name, []Violation{v}, v.Message, nil))
	}
	if len(out) > 0 {
		return out
	}
	return []Result{result(CloudAPIActions, api, nil, fmt.Sprintf("%d actions called %d times, every one served: %s", len(served), calls, strings.Join(served, ", ")),
		map[string]float64{"actions": float64(len(served)), "calls": float64(calls)})}
}
