package rancher

import (
	"fmt"
	"slices"

	"github.com/handover-sh/handover/migrate"
)

// ReadRKEConfig reads an RKE cluster.yml, or Rancher's YAML of an RKE
// cluster, which holds the same under rancher_kubernetes_engine_config.
func ReadRKEConfig(path string) (*Cluster, error) {
	top, err := readDocument(path, "RKE cluster.yml")
	if err != nil {
		return nil, err
	}
	if err := wantRKE(top); err != nil {
		return nil, err
	}
	cfg, err := rkeConfig(top)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Source: path, Procedure: migrate.RKE, Kind: "RKE cluster.yml"}
	for _, read := range []func(field) error{c.readRKEIdentity, c.readRKECloudProvider, c.readRKEServices, c.readRKENodes} {
		if err := read(cfg); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// rkeConfig is where the file holds RKE's configuration: the top of a
// cluster.yml, or rancher_kubernetes_engine_config in Rancher's YAML. A
// file with RKE's keys in both places says two things.
func rkeConfig(top field) (field, error) {
	w, err := top.get(rkeWrapper)
	if err != nil || !w.present() {
		return top, err
	}
	keys, _, _ := top.entries()
	for _, k := range keys {
		if k != rkeWrapper && slices.Contains(rkeKeys, k) {
			return top, top.errorf("%s both at the top and under %s: write RKE's configuration in one place", k, rkeWrapper)
		}
	}
	return w, nil
}

func (c *Cluster) readRKEIdentity(cfg field) error {
	var err error
	if c.Name, err = valueAt(cfg, "cluster_name"); err != nil {
		return err
	}
	v, err := cfg.get("kubernetes_version")
	if err != nil {
		return err
	}
	if !v.present() {
		c.Notes = append(c.Notes, Note{At: v.at(), Text: "not set: RKE runs its release's default, which the file does not name: from and to not derived"})
		return nil
	}
	c.Version, err = readVersion(v, c.Procedure)
	return err
}

// rkeCloudConfigs are cloud_provider's sections of a cloud-config.
var rkeCloudConfigs = []string{"awsCloudProvider", "azureCloudProvider", "customCloudProvider"}

func (c *Cluster) readRKECloudProvider(cfg field) error {
	cp, err := cfg.get("cloud_provider")
	if err != nil {
		return err
	}
	if c.CloudProvider, err = valueAt(cp, "name"); err != nil {
		return err
	}
	h, err := cp.get("useInstanceMetadataHostname")
	if err != nil {
		return err
	}
	if h.present() {
		b, err := h.boolean(false)
		if err != nil {
			return err
		}
		c.MetadataHostname, c.MetadataHostnameAt = &b, h.at()
	}
	for _, k := range rkeCloudConfigs {
		if s, err := cp.get(k); err == nil && s.present() {
			c.Notes = append(c.Notes, Note{At: s.at(), Text: "not carried: " + notCarried["cloud-provider-config"]})
		}
	}
	return nil
}

// readRKEServices reads kube-controller-manager's extra_args, each a
// string as RKE's map[string]string takes it (quote true: "true").
func (c *Cluster) readRKEServices(cfg field) error {
	kc, err := cfg.walk("services", "kube-controller")
	if err != nil {
		return err
	}
	args, err := kc.get("extra_args")
	if err != nil {
		return err
	}
	keys, values, err := args.entries()
	if err != nil {
		return err
	}
	var m managerFlags
	for i, k := range keys {
		v, err := values[i].str()
		if err != nil {
			return err
		}
		if err := m.add(values[i], k, v, false); err != nil {
			return err
		}
	}
	c.setKCMFlags(m)
	for _, keys := range [][]string{{"services", "kube-controller", "extra_binds"}, {"services", "kubelet", "extra_args"}} {
		v, err := cfg.walk(keys...)
		if err != nil {
			return err
		}
		if v.present() {
			c.Notes = append(c.Notes, Note{At: v.at(), Text: "not carried: the procedure sets the managers' mounts and the kubelets' flags as each step needs them"})
		}
	}
	return nil
}

// readRKENodes notes the cluster's size, which a rehearsal does not take.
func (c *Cluster) readRKENodes(cfg field) error {
	nodes, err := cfg.get("nodes")
	if err != nil {
		return err
	}
	items, err := nodes.items()
	if err != nil || len(items) == 0 {
		return err
	}
	var controlPlanes, workers int
	for _, n := range items {
		r, err := n.get("role")
		if err != nil {
			return err
		}
		roles, _, err := r.strs()
		if err != nil {
			return err
		}
		switch {
		case slices.Contains(roles, "controlplane"):
			controlPlanes++
		case slices.Contains(roles, "worker"):
			workers++
		}
	}
	c.Notes = append(c.Notes, Note{At: nodes.at(), Text: fmt.Sprintf("%d control-plane and %d worker-only nodes: not carried (a rehearsal's controlPlanes and workers are its own)", controlPlanes, workers)})
	return nil
}
