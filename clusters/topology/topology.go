// Package topology describes the shape of a handover cluster and checks it
// before anything is created.
package topology

import (
	"fmt"
	"net"
	"os"
	"regexp"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/yamlfields"
)

// Topology is a cluster's shape, as flags or a YAML file give it.
type Topology struct {
	Name          string `json:"name"`
	Kubernetes    string `json:"kubernetes"`
	ControlPlanes int    `json:"controlPlanes"`
	Workers       int    `json:"workers"`
	PodSubnet     string `json:"podSubnet,omitempty"`
	ServiceSubnet string `json:"serviceSubnet,omitempty"`
}

// DefaultName is the cluster every command works on without --name. One
// name for all, as every kind command defaults to "kind": the cluster that
// `cluster create` makes or `rehearse --keep` leaves is the one `migrate`,
// `observe`, `simcloud faults` and `cluster delete` then reach without
// --name. "handover" rather than "rehearsal": most commands work on a
// cluster they did not make, and kind names its default after itself. A
// rehearse whose cluster name is taken refuses before it makes anything,
// naming `cluster delete` and --name.
const DefaultName = "handover"

// Default is a 3 control-plane, 2 worker cluster.
func Default() Topology {
	return Topology{Name: DefaultName, Kubernetes: "v1.30.14", ControlPlanes: 3, Workers: 2,
		PodSubnet: "10.244.0.0/16", ServiceSubnet: "10.96.0.0/16"}
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Validate reports the first problem with a fix in its message.
func (t Topology) Validate() error {
	if !nameRE.MatchString(t.Name) || len(t.Name) > 40 {
		return fmt.Errorf("name %q: use lower-case letters, digits and '-', at most 40 characters", t.Name)
	}
	if t.ControlPlanes < 1 {
		return fmt.Errorf("controlPlanes is %d: a cluster needs at least 1 control-plane node", t.ControlPlanes)
	}
	if t.Workers < 0 {
		return fmt.Errorf("workers is %d: use 0 or more", t.Workers)
	}
	if _, err := nodeimage.Lookup(t.Kubernetes); err != nil {
		return err
	}
	for field, cidr := range map[string]string{"podSubnet": t.PodSubnet, "serviceSubnet": t.ServiceSubnet} {
		if cidr == "" {
			continue
		}
		if _, n, err := net.ParseCIDR(cidr); err != nil || n.IP.To4() == nil {
			return fmt.Errorf("%s %q: give an IPv4 CIDR such as 10.244.0.0/16", field, cidr)
		}
	}
	return nil
}

// Load reads a topology file over the defaults; unknown fields are errors.
func Load(path string) (Topology, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Topology{}, fmt.Errorf("reading topology: %w", err)
	}
	return Parse(raw, path)
}

// Parse decodes topology YAML over the defaults.
func Parse(raw []byte, source string) (Topology, error) {
	t := Default()
	if err := yamlfields.UnmarshalStrict(raw, source, &t); err != nil {
		return Topology{}, fmt.Errorf("not a valid topology: %w", err)
	}
	if err := t.Validate(); err != nil {
		return Topology{}, fmt.Errorf("%s: %w", source, err)
	}
	return t, nil
}
