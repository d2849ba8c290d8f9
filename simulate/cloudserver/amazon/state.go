package amazon

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/facestate"
)

// state is what only AWS has, kept by the face (facestate).
type state = facestate.Store[stateData]

type stateData struct {
	// Tags added by CreateTags, by resource ID (a resource's own tags —
	// an instance's cluster tag and Name — are not kept here).
	Tags map[string]map[string]string `json:"tags"`
	// Deleted are tags of a resource's own removed by DeleteTags.
	Deleted map[string][]string `json:"deleted,omitempty"`
	// Groups are the security groups callers created, by ID.
	Groups map[string]*ec2.SecurityGroup `json:"groups"`
	// NoSourceDestCheck are instances whose check is off.
	NoSourceDestCheck map[string]bool `json:"noSourceDestCheck"`
	// LoadBalancers are the classic load balancers by name.
	LoadBalancers map[string]*classicLB `json:"loadBalancers"`
	// Made counts the IDs handed out, so that each is new.
	Made int `json:"made"`
	// Seen are the instances described so far, by name; Gone says since
	// when one is no longer the cloud's (terminated, or removed).
	Seen map[string]seenInstance `json:"seen,omitempty"`
}

// seenInstance is what EC2 still says of an instance once terminated.
type seenInstance struct {
	Zone string    `json:"zone"`
	Type string    `json:"type"`
	Gone time.Time `json:"gone,omitzero"`
}

func openState(path string) (*state, error) {
	return facestate.Open(path, "the AWS state", func(d *stateData) {
		fill(&d.Tags)
		fill(&d.Deleted)
		fill(&d.Groups)
		fill(&d.NoSourceDestCheck)
		fill(&d.LoadBalancers)
		fill(&d.Seen)
	})
}

// fill makes a map a new or older state file left nil.
func fill[K comparable, V any](m *map[K]V) {
	if *m == nil {
		*m = map[K]V{}
	}
}

// tagsOf merges a resource's own tags with those added and removed since.
func (d *stateData) tagsOf(id string, own map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range own {
		out[k] = v
	}
	for _, k := range d.Deleted[id] {
		delete(out, k)
	}
	for k, v := range d.Tags[id] {
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// clone is a deep copy through JSON, the form the state is kept in.
func clone[T any](v *T) *T {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("amazon: the state cannot be copied: %v", err))
	}
	out := new(T)
	if err := json.Unmarshal(raw, out); err != nil {
		panic(fmt.Sprintf("amazon: the state cannot be copied: %v", err))
	}
	return out
}
