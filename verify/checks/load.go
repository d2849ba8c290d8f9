package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/timeline"
)

// minAPIShare is the share of a profile's API rate the load must achieve.
// Its limiter paces requests at the target, so a delivered run comes
// within a few percent (requests cut short at the stop, responses slowed
// while an etcd member leaves); a throttled one shows far lower (client-go's
// default limit let 20 QPS through as 4.1, 21 %).
const minAPIShare = 0.8

// promise is one thing a load profile promises: the load.stop attributes
// that say what was asked and what was done, and the share of it that
// must be done (0: reported, not judged).
type promise struct {
	what, asked, done, unit string
	minShare                float64
}

// promises of a load profile. Service churn is not judged: an action
// retries through the API's transient failures for up to 30 s, its ticks
// waiting meanwhile, by design; an action that failed fails the check.
var promises = []promise{
	{"API load", "apiQPSTarget", "apiQPSAchieved", "QPS", minAPIShare},
	{"Service churn", "churnActionsTarget", "churnActionsDone", "actions", 0},
	{"node churn", "nodeJoinsAsked", "nodesJoined", "worker joins", 1},
	{"node churn", "nodeTerminationsAsked", "nodesTerminated", "instance terminations", 1},
}

// CheckLoad: the load delivered what its profile promised (the API rate
// within minAPIShare, every worker join and instance termination), and
// every action of the load went through (a Service created, changed or
// deleted, a worker joined or terminated), retries included.
//
// A load that started and never stopped never said what it delivered, and
// fails; a timeline with no load at all (handover observe) has no result.
func CheckLoad(evs []timeline.Event, _ Config) []Result {
	var out []Result
	var open []timeline.Event
	for _, e := range evs {
		switch e.Kind {
		case timeline.LoadStart:
			open = append(open, e)
		case timeline.LoadStop:
			out = append(out, loadResult(e))
			if len(open) > 0 {
				open = open[1:] // it ends the earliest load still going
			}
		}
	}
	for _, e := range open {
		v := loadViolation(e, "unproven: the load started and never stopped, so it never said what it delivered")
		v.Sources = []string{Evidence} // what is missing, not what was seen
		out = append(out, result(Load, e.Attrs["profile"], []Violation{v}, "unproven: no load.stop", nil))
	}
	return out
}

func loadResult(e timeline.Event) Result {
	failed, _ := strconv.Atoi(e.Attrs["failed"])
	metrics := map[string]float64{"failed": float64(failed)}
	var vs []Violation
	if failed > 0 {
		vs = append(vs, loadViolation(e, fmt.Sprintf("%d load actions failed after their retries (the rehearsal's output lists them)", failed)))
	}
	var said, missing []string
	for _, p := range promises {
		asked, okA := number(e.Attrs[p.asked])
		done, okD := number(e.Attrs[p.done])
		switch {
		case e.Attrs["profile"] == "none":
		case p.minShare > 0 && (!okA || asked > 0 && !okD):
			missing = append(missing, p.asked+"/"+p.done)
		case okA && asked > 0 && done < p.minShare*asked:
			vs = append(vs, loadViolation(e, fmt.Sprintf("%s delivered %s of %s %s (%.0f %%)", p.what, short(done), short(asked), p.unit, 100*done/asked)))
		}
		if okA && okD {
			said = append(said, fmt.Sprintf("%s of %s %s", short(done), short(asked), p.unit))
			metrics[p.asked], metrics[p.done] = asked, done
		}
	}
	if len(missing) > 0 {
		vs = append(vs, loadViolation(e, fmt.Sprintf("load.stop does not say what profile %s delivered (no %s): the load's delivery is unproven",
			e.Attrs["profile"], strings.Join(missing, ", "))))
	}
	if p50, ok := e.Attrs["apiLatencyP50Ms"]; ok {
		said = append(said, fmt.Sprintf("API latency p50 %s ms, p99 %s ms", p50, e.Attrs["apiLatencyP99Ms"]))
	}
	summary := fmt.Sprintf("profile %s: %s; %d actions failed", e.Attrs["profile"], strings.Join(said, ", "), failed)
	return result(Load, e.Attrs["profile"], vs, summary, metrics)
}

func loadViolation(e timeline.Event, msg string) Violation {
	return Violation{From: e.Time, To: e.Time, Sources: []string{"load"}, Message: msg}
}

// number parses an attribute; false when it is absent or not a number.
func number(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// short prints a number with at most one decimal: 4.1, 20.
func short(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}
