package faults

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Fault names.
const (
	None          = "none"
	LeaderKill    = "leader-kill"
	CPNodeStop    = "cp-node-stop"
	CloudThrottle = "cloud-throttle"
	CloudOutage   = "cloud-outage"
	// CloudLag: the cloud's instance API is eventually consistent for a
	// while (the cloud's lag knob, at CloudLagBy): a manager does not find
	// an instance just launched and still finds one just terminated — the
	// window in which a manager deleted a Node whose new instance it could
	// not see yet (kubernetes/kubernetes#64036, #81636).
	CloudLag = "cloud-lag"
	// ServiceDelete deletes a LoadBalancer Service at the hand-off.
	ServiceDelete = "service-delete"
	// NodeReregister deletes a worker's Node and registers it again with
	// another ProviderID, as when another provider initialised it first.
	NodeReregister = "node-reregister"
	// CCMDeniedRoutes: the cloud-controller-manager's credentials lack
	// the route permissions (CreateRoute, DeleteRoute refused with 403),
	// as a CCM role written without them: the route controller it is
	// handed fails every change.
	CCMDeniedRoutes = "ccm-denied-routes"
	// CCMOtherRegion: the cloud-controller-manager's credentials see
	// another region (a role or cloud-config of another region): it finds
	// none of the cluster's instances, so it initialises no node that
	// joins after the hand-off and routes to none of them
	// (kubernetes/cloud-provider-gcp#758, oracle/oci-cloud-controller-manager#434).
	CCMOtherRegion = "ccm-other-region"
)

// AfterProcedure, as a fault's step, is the moment the procedure has
// ended: the fault then tests what the migration left behind (a manager
// that still competes for the migration lease, say), and the rehearsal
// observes its Aftermath before it concludes.
const AfterProcedure = "after"

// Aftermath is how long a rehearsal goes on observing after a fault that
// came after the procedure: longer than the coverage-gap threshold, so a
// hand-off that never happens shows as a gap.
const Aftermath = time.Minute

var defaults = map[string]Spec{
	None:           {Name: None},
	LeaderKill:     {Name: LeaderKill, Delay: 5 * time.Second},
	CPNodeStop:     {Name: CPNodeStop, Delay: 5 * time.Second, Duration: 30 * time.Second},
	CloudThrottle:  {Name: CloudThrottle, Delay: 0, Duration: 90 * time.Second, cloud: true},
	CloudOutage:    {Name: CloudOutage, Delay: 0, Duration: 30 * time.Second, cloud: true},
	CloudLag:       {Name: CloudLag, Delay: 0, Duration: 3 * time.Minute, cloud: true},
	ServiceDelete:  {Name: ServiceDelete, Delay: 5 * time.Second},
	NodeReregister: {Name: NodeReregister, Delay: 5 * time.Second},
	// From the hand-off to the end: the credentials do not heal.
	CCMDeniedRoutes: {Name: CCMDeniedRoutes, cloud: true},
	CCMOtherRegion:  {Name: CCMOtherRegion, cloud: true},
}

// Spec is one fault and when it happens.
type Spec struct {
	Name string `json:"name"`
	// Step: the fault comes Delay after the runner starts this step. ""
	// means at the hand-off: once both managers have a leader and the
	// migration lease is held; AfterProcedure, once the procedure ended.
	Step  string        `json:"step,omitempty"`
	Delay time.Duration `json:"delay,omitempty"`
	// Duration a node stays stopped or the cloud misbehaves.
	Duration time.Duration `json:"duration,omitempty"`
	// cloud: the fault sets the simulated cloud's own knobs.
	cloud bool
}

// Names lists the faults.
func Names() []string {
	return slices.Sorted(maps.Keys(defaults))
}

// Lookup is a fault with its default schedule.
func Lookup(name string) (Spec, error) {
	s, ok := defaults[name]
	if !ok {
		return Spec{}, fmt.Errorf("--faults %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// Validate checks a spec against the steps of the procedure it joins.
func (s Spec) Validate(steps []string) error {
	if _, ok := defaults[s.Name]; !ok {
		return fmt.Errorf("fault %q: use one of %s", s.Name, strings.Join(Names(), ", "))
	}
	if s.Delay < 0 || s.Duration < 0 {
		return fmt.Errorf("fault %s: delay and duration must not be negative", s.Name)
	}
	if (s.Name == CPNodeStop || s.Name == CloudThrottle || s.Name == CloudOutage || s.Name == CloudLag) && s.Duration == 0 {
		return fmt.Errorf("fault %s needs a duration", s.Name)
	}
	if s.Step == "" || s.Step == AfterProcedure {
		return nil
	}
	for _, st := range steps {
		if st == s.Step {
			return nil
		}
	}
	return fmt.Errorf("fault %s: step %q is not a step of the procedure (%s) nor %q", s.Name, s.Step, strings.Join(steps, ", "), AfterProcedure)
}

// Active says whether the spec injects anything.
func (s Spec) Active() bool { return s.Name != "" && s.Name != None }

func (s Spec) String() string {
	if !s.Active() {
		return None
	}
	when := "at the hand-off"
	switch s.Step {
	case "":
	case AfterProcedure:
		when = "after the procedure"
	default:
		when = "at step " + s.Step
	}
	if s.Delay > 0 {
		when += fmt.Sprintf(" + %s", s.Delay)
	}
	return s.Name + " " + when
}

// Cloud says whether the fault sets the simulated cloud's own knobs.
func (s Spec) Cloud() bool { return s.cloud }
