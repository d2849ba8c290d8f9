package load

import (
	"slices"
	"strconv"
	"time"
)

// Delivered is what the profile asked for over the load's run, beside
// what the load did (Summary's counts), so a throttled or cut-short load
// says so instead of passing for the profile.
type Delivered struct {
	Duration time.Duration // Start to Stop: how long the API load and churn ran
	// APIQPS is APIRequests / Duration.
	APIQPSTarget, APIQPS float64
	// ChurnTarget is the Service churn actions (creates, updates and
	// deletes) Duration holds at one tick per ChurnEvery.
	ChurnTarget                           int
	NodeJoinsAsked, NodeTerminationsAsked int
	// APILatencyP50 and P99 are the API requests' latencies: a rate short
	// of its target with slow responses is the cluster's slowness.
	APILatencyP50, APILatencyP99 time.Duration
}

// deliver fills in the targets of p over d, the achieved API rate and the
// latencies' quantiles.
func (s *Summary) deliver(p Profile, d time.Duration, latencies []time.Duration) {
	s.Delivered = Delivered{Duration: d, APIQPSTarget: p.APIQPS, ChurnTarget: churnActions(p.ChurnEvery, d),
		NodeJoinsAsked: p.NodeJoins, NodeTerminationsAsked: p.NodeTerminations,
		APILatencyP50: quantile(latencies, 0.50), APILatencyP99: quantile(latencies, 0.99)}
	if d > 0 {
		s.APIQPS = float64(s.APIRequests) / d.Seconds()
	}
}

// quantile q of ds (sorted here), 0 without any.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// churnActions is how many actions churn every `every` makes in d: tick n
// creates one Service, from the second on updates one, from the third on
// deletes one.
func churnActions(every, d time.Duration) int {
	if every <= 0 {
		return 0
	}
	ticks := int(d / every)
	return ticks + max(ticks-1, 0) + max(ticks-2, 0)
}

// ChurnDone is the Service churn actions that went through.
func (s Summary) ChurnDone() int {
	return s.ServicesCreated + s.ServicesUpdated + s.ServicesDeleted
}

// attrs are the load.stop event's attributes: what the load did and, as
// <what>Target / Achieved / Done / Asked, what the profile asked for.
func (s Summary) attrs() map[string]string {
	itoa := strconv.Itoa
	return map[string]string{
		"profile": s.Profile, "servicesCreated": itoa(s.ServicesCreated), "servicesUpdated": itoa(s.ServicesUpdated),
		"servicesDeleted": itoa(s.ServicesDeleted), "apiRequests": itoa(s.APIRequests), "apiErrors": itoa(s.APIErrors),
		"nodesJoined": itoa(s.NodesJoined), "nodesTerminated": itoa(s.NodesTerminated), "failed": itoa(s.Failed),
		"loadSeconds":           strconv.FormatFloat(s.Duration.Seconds(), 'f', 1, 64),
		"apiQPSTarget":          strconv.FormatFloat(s.APIQPSTarget, 'f', -1, 64),
		"apiQPSAchieved":        strconv.FormatFloat(s.APIQPS, 'f', 2, 64),
		"churnActionsTarget":    itoa(s.ChurnTarget),
		"churnActionsDone":      itoa(s.ChurnDone()),
		"nodeJoinsAsked":        itoa(s.NodeJoinsAsked),
		"nodeTerminationsAsked": itoa(s.NodeTerminationsAsked),
		"apiLatencyP50Ms":       strconv.FormatInt(s.APILatencyP50.Milliseconds(), 10),
		"apiLatencyP99Ms":       strconv.FormatInt(s.APILatencyP99.Milliseconds(), 10),
	}
}
