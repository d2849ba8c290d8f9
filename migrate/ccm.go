package migrate

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers"
)

// Where the task doc puts the configuration, on every control plane.
const (
	LMConfigPath = "/etc/leadermigration.conf"
	lmVolume     = "leadermigration"
)

// LMFlags enable leader migration with the configuration file; with no
// file, the managers use their built-in default.
func LMFlags(withFile bool) []string {
	if !withFile {
		return []string{"--enable-leader-migration"}
	}
	return []string{"--enable-leader-migration", "--leader-migration-config=" + LMConfigPath}
}

// lmConfig is the configuration giving the spec's controllers to component.
func (s Spec) lmConfig(component, version string) *lmconfig.Config {
	c := lmconfig.New(component, ownNames(component, version, s.Controllers())...)
	c.LeaderName = s.LeaderName
	return c
}

// wildcardConfig gives every controller to '*' under the names the
// manager of component at version filters on: the two managers' names
// differ only across 1.28's rename, so each reads its own file.
func (s Spec) wildcardConfig(component, version string) *lmconfig.Config {
	c := lmconfig.New(lmconfig.Wildcard, ownNames(component, version, s.Controllers())...)
	c.LeaderName = s.LeaderName
	return c
}

// ccmStaticPod is the N+1 cloud-controller-manager manifest of the task
// doc, as st sets the manager up.
func ccmStaticPod(s Spec, st Setup) string {
	c := st.CCM
	var args []string
	if c.Controllers != "" {
		args = append(args, "--controllers="+c.Controllers)
	}
	files := map[string]string{}
	switch {
	case c.LeaderMigration && c.Config == nil:
		args = append(args, LMFlags(false)...)
	case c.LeaderMigration:
		args = append(args, LMFlags(true)...)
		files[lmVolume] = LMConfigPath
	}
	return s.Provider().Forms.StaticPod(providers.StaticPodInput{Version: s.To, Cluster: c.ClusterName, PodSubnet: s.PodSubnet, Args: append(args, c.Args...), Files: files})
}

// lmFile is the configuration file a new control plane gets, nil when no
// manager on it reads one.
func (st Setup) lmFile() *lmconfig.Config {
	if st.CCM != nil && st.CCM.Config != nil {
		return st.CCM.Config
	}
	if st.NewKCM != nil {
		return st.NewKCM.Config
	}
	return nil
}

// With node IPAM migrating, the cloud-controller-manager must start it and
// the N+1 kube-controller-manager must not (kubeadm's default list, minus
// node IPAM).
const (
	ccmNodeIPAMControllers = "*,%s"
	kcmNoNodeIPAM          = "*,bootstrapsigner,tokencleaner,-%s"
)

// ccmKubeconfig issues the cloud-controller-manager's kubeconfig from a
// control plane's CA and controller-manager.conf.
func (e *Env) ccmKubeconfig(ctx context.Context, from string) (string, error) {
	read := func(p string) ([]byte, error) {
		s, err := e.Cluster.ReadFile(ctx, from, p)
		return []byte(s), err
	}
	conf, err := read("/etc/kubernetes/controller-manager.conf")
	if err != nil {
		return "", err
	}
	crt, err := read("/etc/kubernetes/pki/ca.crt")
	if err != nil {
		return "", err
	}
	key, err := read("/etc/kubernetes/pki/ca.key")
	if err != nil {
		return "", err
	}
	return e.Spec.Provider().Forms.Kubeconfig(conf, crt, key)
}

// kubeletNoInTreeGates drops the gates the in-tree cluster's shared
// KubeletConfiguration sets, which kubelets of 1.31 and later refuse
// (both are locked to true there): an external kubelet pulls through the
// provider's plugin.
const kubeletNoInTreeGates = "featureGates:\n  DisableCloudProviders: null\n  DisableKubeletCloudCredentialProviders: null\n"

// addN1ControlPlane joins a version-N+1 control plane: kubeadm renders its
// static pods from the N+1 ClusterConfiguration; its kubelet is external;
// a static-pod cloud-controller-manager runs there with the configuration
// giving the controllers to cloud-controller-manager. cordoned registers
// its Node unschedulable.
func (e *Env) addN1ControlPlane(ctx context.Context, cordoned bool) (string, error) {
	files := map[string]string{replacementMark: e.Spec.To + "\n"}
	if e.Spec.ccmStaticPod() {
		cps, err := e.controlPlanes(ctx)
		if err != nil {
			return "", err
		}
		kubeconfig, err := e.ccmKubeconfig(ctx, cps[0].Name)
		if err != nil {
			return "", err
		}
		maps.Copy(files, e.Spec.ccmFiles(kubeconfig))
		if err := e.applyNodeManager(ctx); err != nil {
			return "", err
		}
	}
	st := e.Spec.setup()
	return e.Cluster.AddNode(ctx, kindcluster.AddNodeOptions{
		Role: kindcluster.RoleControlPlane, Kubernetes: e.Spec.To, Wait: e.Spec.Intervals.Of(IntervalJoin), LocalAPIServer: true,
		ByHostname:  st.N1ByHostname || st.SwitchByHostname,
		KubeletArgs: e.Spec.n1Kubelet(cordoned),
		Patches:     map[string]string{"kubeletconfiguration+merge.yaml": kubeletNoInTreeGates},
		Files:       files,
	})
}

// n1Kubelet are the flags a version-N+1 control plane's kubelet joins with:
// external, pulling from the provider's registry through its image
// credential provider (unless the setup leaves that out), and, cordoned,
// registering its Node unschedulable. An empty value drops the flag.
func (s Spec) n1Kubelet(cordoned bool) map[string]string {
	kubelet := map[string]string{"cloud-provider": "external", "cloud-config": ""}
	if reg, ok := s.Registry(); ok && !s.setup().N1NoImageCredentials {
		maps.Copy(kubelet, reg.KubeletCredentialFlags(s.To))
	}
	if cordoned {
		kubelet["register-schedulable"] = "false"
	}
	return kubelet
}

// kubeletFlags prints kubelet flags for a plan, --cloud-provider first and
// the rest sorted, one per line after the first; flags with an empty value
// (dropped) are left out.
func kubeletFlags(args map[string]string) string {
	first := func(k string) int {
		if k == "cloud-provider" {
			return 0
		}
		return 1
	}
	keys := slices.SortedFunc(maps.Keys(args), func(a, b string) int { return cmp.Or(cmp.Compare(first(a), first(b)), cmp.Compare(a, b)) })
	var out []string
	for _, k := range keys {
		if args[k] != "" {
			out = append(out, "--"+k+"="+args[k])
		}
	}
	return "kubelet " + strings.Join(out, "\n#   ")
}

// ccmStaticPod: the cloud-controller-manager runs as a static pod on each
// N+1 control plane (not a chart's workload).
func (s Spec) ccmStaticPod() bool { return s.CCMWorkload() == managers.StaticPod }

// ccmFiles are what a control plane needs for its static-pod
// cloud-controller-manager.
func (s Spec) ccmFiles(kubeconfig string) map[string]string {
	st := s.setup()
	if st.CCM == nil {
		return nil
	}
	files := map[string]string{
		s.Provider().CCMKubeconfigPath: kubeconfig,
		s.Provider().CCMStaticPodPath:  ccmStaticPod(s, st),
	}
	if cfg := st.lmFile(); cfg != nil {
		files[LMConfigPath] = cfg.YAML()
	}
	return files
}

// ownName is a canonical controller name as the manager of component at
// version calls it (short names before 1.28; the configuration's names are
// compared with them as they are). Names of a manager handover has no facts
// for are kept.
func ownName(component, version, canonical string) string {
	m, err := lint.LookupManager(component, version)
	if err != nil {
		return canonical
	}
	return m.Name(canonical)
}

// ownNames is ownName of each name.
func ownNames(component, version string, canonical []string) []string {
	out := make([]string, len(canonical))
	for i, c := range canonical {
		out[i] = ownName(component, version, c)
	}
	return out
}

// applyNodeManager applies what initialises the Nodes of external kubelets
// beside a static-pod cloud-controller-manager, when its provider's
// manager leaves that to another (nodeManagerPlan), before the first
// external kubelet joins.
func (e *Env) applyNodeManager(ctx context.Context) error {
	m := e.Spec.nodeManager()
	if m == "" {
		return nil
	}
	if err := e.Cluster.Apply(ctx, m); err != nil {
		return fmt.Errorf("applying the cloud-controller-manager's node manager: %w", err)
	}
	return nil
}

// nodeManager is the manifest of the provider's node manager for the
// N+1 managers ("": none, or no static-pod manager is placed).
func (s Spec) nodeManager() string {
	if st := s.setup(); st.CCM == nil || st.NoNodeManager || !s.ccmStaticPod() {
		return ""
	}
	return s.Provider().Forms.NodeManager(s.To)
}

// nodeManagerPlan shows the node manager a static-pod manager needs.
func (s Spec) nodeManagerPlan() []Item {
	m := s.nodeManager()
	if m == "" {
		return nil
	}
	return []Item{{Kind: File, Title: "the manager's node manager, which initialises the Nodes its --controllers leave out (kubectl apply -f)", Body: m}}
}
