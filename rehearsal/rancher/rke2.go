package rancher

import (
	"fmt"
	"maps"
	"slices"

	"github.com/handover-sh/handover/migrate"
)

// ReadProvisioningCluster reads an RKE2 or K3s cluster's YAML in Rancher:
// a provisioning.cattle.io/v1 Cluster.
func ReadProvisioningCluster(path string) (*Cluster, error) {
	top, err := readDocument(path, "provisioning Cluster")
	if err != nil {
		return nil, err
	}
	if err := wantProvisioning(top); err != nil {
		return nil, err
	}
	c := &Cluster{Source: path, Procedure: migrate.RKE2, Kind: "RKE2 provisioning Cluster"}
	if err := c.readRKE2(top); err != nil {
		return nil, err
	}
	return c, nil
}

// The keys of an RKE2 machine configuration (machineGlobalConfig, a
// machineSelectorConfig entry's config) that a rehearsal reads.
const (
	keyCloudProvider = "cloud-provider-name"
	keyKCMArgs       = "kube-controller-manager-arg"
)

// notCarried are keys of a machine configuration that bear on the
// migration but that a rehearsal does not take from the file, and why.
var notCarried = map[string]string{
	"kubelet-arg":           "the procedure sets the kubelets' flags as each step needs them",
	"cloud-provider-config": "a cloud-config: the rehearsal runs the simulated cloud's (a rehearsal file's cloudConfig takes your own, --provider aws)",
}

func (c *Cluster) readRKE2(top field) error {
	var err error
	if c.Name, err = valueAt(top, "metadata", "name"); err != nil {
		return err
	}
	if c.Namespace, err = valueAt(top, "metadata", "namespace"); err != nil {
		return err
	}
	v, err := top.walk("spec", "kubernetesVersion")
	if err != nil {
		return err
	}
	if !v.present() {
		return v.errorf("missing: a provisioning Cluster names its Kubernetes version")
	}
	if c.Version, err = readVersion(v, c.Procedure); err != nil {
		return err
	}
	rke, err := top.walk("spec", "rkeConfig")
	if err != nil {
		return err
	}
	if !rke.present() {
		return rke.errorf("missing: a cluster Rancher provisions with RKE2 or K3s has one (an imported cluster's YAML does not say how it runs)")
	}
	for _, read := range []func(field) error{c.readMachineConfig, c.readManifest, c.readPools} {
		if err := read(rke); err != nil {
			return err
		}
	}
	return nil
}

// valueAt is the string at a path below f, with its place.
func valueAt(f field, keys ...string) (Value, error) {
	v, err := f.walk(keys...)
	if err != nil {
		return Value{}, err
	}
	s, err := v.str()
	return Value{Text: s, At: v.at()}, err
}

// readMachineConfig reads the configuration the control planes run with,
// as Rancher's planner puts it together (rancher/rancher pkg/capr/planner,
// addUserConfig): machineGlobalConfig, then each machineSelectorConfig
// entry that selects the machine, a later entry's key replacing the
// earlier value whole.
func (c *Cluster) readMachineConfig(rke field) error {
	global, err := rke.get("machineGlobalConfig")
	if err != nil {
		return err
	}
	configs := []field{global}
	entries, err := rke.get("machineSelectorConfig")
	if err != nil {
		return err
	}
	items, err := entries.items()
	if err != nil {
		return err
	}
	for _, e := range items {
		ok, err := c.selectsControlPlanes(e)
		if err != nil {
			return err
		}
		if ok {
			cfg, err := e.get("config")
			if err != nil {
				return err
			}
			configs = append(configs, cfg)
		}
	}
	last := map[string]field{}
	for _, cfg := range configs {
		keys, values, err := cfg.entries()
		if err != nil {
			return err
		}
		for i, k := range keys {
			last[k] = values[i]
		}
	}
	return c.readControlPlaneConfig(last)
}

// selectsControlPlanes says whether a machineSelectorConfig entry applies
// to the control planes; one that may or may not is noted where it sets
// what a rehearsal reads.
func (c *Cluster) selectsControlPlanes(e field) (bool, error) {
	sel, err := e.get("machineLabelSelector")
	if err != nil {
		return false, err
	}
	r, err := readSelector(sel)
	if err != nil || r != reachesUnknown {
		return r == reachesAll || r == reachesControlPlanes, err
	}
	cfg, err := e.get("config")
	if err != nil {
		return false, err
	}
	for _, k := range []string{keyCloudProvider, keyKCMArgs} {
		if v, err := cfg.get(k); err == nil && v.present() {
			c.Notes = append(c.Notes, Note{At: v.at(), Text: "not read: its machineLabelSelector selects by labels a control plane may or may not carry (only " + controlPlaneRole + " tells)"})
		}
	}
	return false, nil
}

// readControlPlaneConfig reads the control planes' configuration, each
// key as the entry that set it last has it.
func (c *Cluster) readControlPlaneConfig(cfg map[string]field) error {
	if f, ok := cfg[keyCloudProvider]; ok {
		s, err := f.str()
		if err != nil {
			return err
		}
		c.CloudProvider = Value{Text: s, At: f.at()}
	}
	if f, ok := cfg[keyKCMArgs]; ok {
		values, fields, err := f.strs()
		if err != nil {
			return err
		}
		var m managerFlags
		if err := m.addArgs(values, fields); err != nil {
			return err
		}
		c.setKCMFlags(m)
	}
	for _, k := range sortedKeys(notCarried) {
		if f, ok := cfg[k]; ok && f.present() {
			c.Notes = append(c.Notes, Note{At: f.at(), Text: "not carried: " + notCarried[k]})
		}
	}
	return nil
}

// setKCMFlags takes kube-controller-manager's flags as read.
func (c *Cluster) setKCMFlags(m managerFlags) {
	c.KCMArgs, c.KCMLeaderMigration, c.KCMProvider = m.args, m.lm, m.provider
	c.Notes = append(c.Notes, m.notes...)
}

// readPools reads what the machine pools say: their cloud (the node
// driver's configuration kind) and the cluster's size, which a rehearsal
// does not take (its own size fits the machine it runs on).
func (c *Cluster) readPools(rke field) error {
	pools, err := rke.get("machinePools")
	if err != nil {
		return err
	}
	items, err := pools.items()
	if err != nil || len(items) == 0 {
		return err
	}
	var controlPlanes, workers int
	for _, p := range items {
		kind, err := valueAt(p, "machineConfigRef", "kind")
		if err != nil {
			return err
		}
		if err := c.setNodeDriver(kind); err != nil {
			return err
		}
		n, cp, w, err := poolSize(p)
		if err != nil {
			return err
		}
		if cp {
			controlPlanes += n
		} else if w {
			workers += n
		}
	}
	c.Notes = append(c.Notes, Note{At: pools.at(), Text: fmt.Sprintf("%d control-plane and %d worker-only machines: not carried (a rehearsal's controlPlanes and workers are its own)", controlPlanes, workers)})
	return nil
}

// setNodeDriver records the pools' node driver; pools of two clouds are
// an error.
func (c *Cluster) setNodeDriver(kind Value) error {
	if _, known := nodeDrivers[kind.Text]; !known {
		return nil
	}
	if c.NodeDriver.Text != "" && nodeDrivers[c.NodeDriver.Text] != nodeDrivers[kind.Text] {
		return fmt.Errorf("%s: %s, but %s: %s: machine pools of two clouds", c.NodeDriver.At, c.NodeDriver.Text, kind.At, kind.Text)
	}
	if c.NodeDriver.Text == "" {
		c.NodeDriver = kind
	}
	return nil
}

// poolSize is a pool's quantity (1 when not given, as Rancher defaults
// it) and its roles.
func poolSize(p field) (n int, controlPlane, worker bool, err error) {
	q, err := p.get("quantity")
	if err != nil {
		return 0, false, false, err
	}
	n = 1
	if q.present() {
		if err := q.node.Decode(&n); err != nil || q.node.Tag != "!!int" || n < 0 {
			return 0, false, false, q.errorf("want a number of machines, got %s", kindOf(q.node))
		}
	}
	roles := make([]bool, 2)
	for i, k := range []string{"controlPlaneRole", "workerRole"} {
		f, err := p.get(k)
		if err == nil {
			roles[i], err = f.boolean(false)
		}
		if err != nil {
			return 0, false, false, err
		}
	}
	return n, roles[0], roles[1], nil
}

// sortedKeys are a table's keys in order, for output that does not vary.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
