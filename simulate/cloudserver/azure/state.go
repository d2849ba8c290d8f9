package azure

import (
	"encoding/json"
	"fmt"

	"github.com/handover-sh/handover/simulate/cloudserver/facestate"
)

// state is what only Azure has, kept by the face (facestate).
type state = facestate.Store[stateData]

type stateData struct {
	// LoadBalancers, PublicIPs and SecurityGroups are those resources as
	// their last PUT left them, by name in lower case (ARM's names are
	// case-insensitive), with the fields ARM sets itself.
	LoadBalancers  map[string]resource `json:"loadBalancers"`
	PublicIPs      map[string]resource `json:"publicIPs"`
	SecurityGroups map[string]resource `json:"securityGroups"`
	// Pools are the backend pools each interface's IP configuration is in,
	// by interface name (lower case): the pools' IDs as the interface's
	// PUT named them.
	Pools map[string][]string `json:"pools"`
	// Carriers are the cloud's load balancers that carry the public IPs'
	// traffic, by public IP (lower case), as the face last made them
	// (carriers.go).
	Carriers map[string]carrier `json:"carriers"`
	// Seen are the primary addresses of the instances listed so far, by
	// name: a route to an instance that is gone still shows its next hop.
	Seen map[string]string `json:"seen"`
}

// resource is an ARM resource as JSON decodes it.
type resource = map[string]any

func openState(path string) (*state, error) {
	return facestate.Open(path, "the Azure state", (*stateData).fill)
}

func (d *stateData) fill() {
	for _, m := range []*map[string]resource{&d.LoadBalancers, &d.PublicIPs, &d.SecurityGroups} {
		if *m == nil {
			*m = map[string]resource{}
		}
	}
	if d.Pools == nil {
		d.Pools = map[string][]string{}
	}
	if d.Carriers == nil {
		d.Carriers = map[string]carrier{}
	}
	if d.Seen == nil {
		d.Seen = map[string]string{}
	}
}

// clone is a deep copy through JSON, the form the state is kept in.
func clone[T any](v T) T {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("azure: the state cannot be copied: %v", err))
	}
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(fmt.Sprintf("azure: the state cannot be copied: %v", err))
	}
	return out
}
