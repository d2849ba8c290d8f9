package migrate

import (
	"context"
	"fmt"
	"maps"

	"github.com/handover-sh/handover/clusters/kindcluster"
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
	namer := component
	if component == lmconfig.Wildcard {
		namer = lmconfig.KCM
	}
	c := lmconfig.New(component, ownNames(namer, version, s.Controllers())...)
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
// its cloud-controller-manager runs as a static pod with the configuration
// giving the controllers to cloud-controller-manager.
func (e *Env) addN1ControlPlane(ctx context.Context) (string, error) {
	cps, err := e.controlPlanes(ctx)
	if err != nil {
		return "", err
	}
	kubeconfig, err := e.ccmKubeconfig(ctx, cps[0].Name)
	if err != nil {
		return "", err
	}
	files := e.Spec.ccmFiles(kubeconfig)
	if files == nil {
		files = map[string]string{}
	}
	if err := e.applyNodeManager(ctx); err != nil {
		return "", err
	}
	files[replacementMark] = e.Spec.To + "\n"
	kubelet := map[string]string{"cloud-provider": "external", "cloud-config": ""}
	st := e.Spec.setup()
	if reg, ok := e.Spec.Registry(); ok && !st.N1NoImageCredentials {
		maps.Copy(kubelet, reg.KubeletCredentialFlags(e.Spec.To))
	}
	return e.Cluster.AddNode(ctx, kindcluster.AddNodeOptions{
		Role: kindcluster.RoleControlPlane, Kubernetes: e.Spec.To, Wait: e.Spec.Intervals.Of(IntervalJoin), LocalAPIServer: true,
		ByHostname:  st.N1ByHostname,
		KubeletArgs: kubelet,
		Patches:     map[string]string{"kubeletconfiguration+merge.yaml": kubeletNoInTreeGates},
		Files:       files,
	})
}

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
	if s.setup().CCM == nil {
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
