package checks

import "github.com/handover-sh/handover/timeline"

// All runs every check; a scale rehearsal's simulated nodes are judged
// together, one result per check.
func All(evs []timeline.Event, cfg Config) []Result {
	var out []Result
	for _, check := range []func([]timeline.Event, Config) []Result{
		CheckProcedures, CheckLoad, CheckEvidence, CheckMutualExclusion, CheckCoverageGap, CheckAPIAvailability, CheckLBAvailability,
		CheckProviderIDs, CheckNodeIdentity, CheckNodeMetadata, CheckUninitializedTaint, CheckNodeDeletion, CheckStaleNodes, CheckPodCIDRs, CheckRouteTable, CheckLBIdentity, CheckLBSingle, CheckIngressStable, CheckLBProvision, CheckCloudAPIActions, CheckImagePulls,
	} {
		out = append(out, check(evs, cfg)...)
	}
	return foldSimulated(evs, out)
}

// Passed is true when every result passed.
func Passed(rs []Result) bool {
	for _, r := range rs {
		if !r.Passed {
			return false
		}
	}
	return true
}
