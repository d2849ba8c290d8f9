package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Spec is everything a procedure is built from; the same Spec gives the
// plan and the run, so what is printed is what runs.
type Spec struct {
	Procedure string
	Cluster   string
	From      string // Kubernetes version N, with the in-tree provider
	To        string // Kubernetes version N+1, with the cloud-controller-manager
	// ControlPlanes is N, the number of control-plane nodes kept throughout.
	ControlPlanes int
	PodSubnet     string
	LeaderName    string
	Variant       Variant
	// Flavour picks the Rancher runbook's cloud: aws or azure (rke2),
	// external or external-aws (rke).
	Flavour string
	// CloudProfile is the provider the simulated cloud and its
	// cloud-controller-manager behave as (providers/profiles; "" is
	// handover's own, upstream's manager): azure's manager ignores leader
	// migration. The lint judges the manager by the same profile.
	CloudProfile string `json:",omitempty"`
	// Mistake makes the procedure go wrong on purpose (see Mistakes).
	Mistake string
	// Intervals overrides how long steps wait (package waits; `rehearse --help` lists them).
	Intervals Intervals `json:",omitempty"`
	// KCMConfig and CCMConfig are the user's own leader-migration
	// configurations, replacing the procedure's; nil keeps the procedure's.
	KCMConfig, CCMConfig *UserConfig `json:",omitempty"`
	// KCMArgs and CCMArgs are further flags (--name=value) for every
	// kube-controller-manager (N and N+1) and every cloud-controller-manager;
	// they win over the procedure's own.
	KCMArgs, CCMArgs []string `json:",omitempty"`
	// CCMForm is how the cloud-controller-manager runs (static-pod,
	// daemonset, deployment); "" is the procedure's (or flavour's) own.
	CCMForm string `json:",omitempty"`
	// CCMReplicas are a Deployment's replicas; 0 is one per control plane.
	CCMReplicas int `json:",omitempty"`
	// CCMManifest is the user's own DaemonSet or Deployment manifest.
	CCMManifest *CCMManifest `json:",omitempty"`
	// KCMCloudConfig and CCMCloudConfig are the user's own cloud-configs
	// (a provider's own code only): the in-tree provider's and the
	// cloud-controller-manager's.
	KCMCloudConfig, CCMCloudConfig *CloudConfigFile `json:",omitempty"`
	// Policies are the user's own permission policies by component (kcm,
	// ccm, kubelet), for a provider whose cloud has a permission model.
	Policies map[string]PolicyFile `json:",omitempty"`
}

// Variant modifies a procedure.
type Variant struct {
	InPlace  bool // rewrite static pods node by node instead of replacing nodes
	Rollback bool // N+1 back to N, one node at a time
	Disable  bool // remove leader migration once done
	// CCMLast deploys the cloud-controller-manager only once every
	// kube-controller-manager runs without the in-tree provider: no
	// controller can run in two managers whatever the manager does with
	// leader migration (Azure's ignores it), at the cost of a gap.
	CCMLast bool
}

// DefaultSpec is the default rehearsal's cluster: 3 control planes, v1.30.14
// to v1.31.4.
func DefaultSpec(procedure string) Spec {
	return Spec{Procedure: procedure, Cluster: topology.DefaultName, From: "v1.30.14", To: "v1.31.4",
		ControlPlanes: 3, PodSubnet: "10.244.0.0/16", LeaderName: lmconfig.DefaultLeaderName}
}

// Validate rejects contradictions before anything is built or run.
func (s Spec) Validate() error {
	var errs []string
	from, err := nodeimage.Lookup(s.From)
	if err != nil {
		errs = append(errs, "--from: "+err.Error())
	} else if !from.InTreeCloud {
		errs = append(errs, fmt.Sprintf("--from %s: its managers have no in-tree cloud provider to migrate from", s.From))
	}
	if _, err := nodeimage.Lookup(s.To); err != nil {
		errs = append(errs, "--to: "+err.Error())
	} else if from.InTreeCloud && !nodeimage.PairOK(s.From, s.To) {
		errs = append(errs, fmt.Sprintf("--from %s --to %s: handover rehearses a version with the in-tree provider to itself or to the next minor; choose one of %s",
			s.From, s.To, strings.Join(nodeimage.Pairs(), ", ")))
	}
	errs = append(errs, s.validCounts()...)
	if err := ValidLeaderName(s.LeaderName); err != nil {
		errs = append(errs, err.Error())
	}
	r, err := Lookup(s.Procedure)
	if err != nil {
		return err
	}
	for _, v := range []struct {
		flag string
		set  func(Variant) bool
	}{
		{"--in-place", func(v Variant) bool { return v.InPlace }},
		{"--rollback", func(v Variant) bool { return v.Rollback }},
		{"--disable", func(v Variant) bool { return v.Disable }},
		{"--ccm-last", func(v Variant) bool { return v.CCMLast }},
	} {
		if v.set(s.Variant) && !v.set(r.Variants) {
			errs = append(errs, fmt.Sprintf("%s applies to %s only", v.flag, accepting(func(r Registration) bool { return v.set(r.Variants) })))
		}
	}
	if s.Variant.InPlace && s.Variant.Rollback {
		errs = append(errs, "--in-place and --rollback contradict: rollback replaces nodes")
	}
	if err := s.validFlavour(); err != nil {
		errs = append(errs, err.Error())
	}
	if err := s.Intervals.Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if s.Mistake != "" && (s.KCMConfig != nil || s.CCMConfig != nil) {
		errs = append(errs, "--mistake and --leader-migration-config contradict: a mistake changes handover's own configurations")
	}
	errs = append(errs, s.validArgs()...)
	errs = append(errs, s.validCCMForm()...)
	errs = append(errs, s.validCloudConfigs()...)
	errs = append(errs, s.validPolicies()...)
	if err := s.validMistake(); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid migration: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (s Spec) validFlavour() error {
	ok := s.reg().Flavours
	switch {
	case len(ok) == 0 && s.Flavour != "":
		return fmt.Errorf("--flavour applies to %s only", accepting(func(r Registration) bool { return len(r.Flavours) > 0 }))
	case len(ok) == 0 || slices.Contains(ok, s.Flavour):
		return nil
	}
	return fmt.Errorf("--flavour %q: %s supports %s", s.Flavour, s.Procedure, strings.Join(ok, ", "))
}
