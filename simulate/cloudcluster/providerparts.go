package cloudcluster

import (
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/simulate/cloudserver/calllog"
)

// The parts every provider whose code runs in a cluster shares: kubeadm's
// identity for a static-pod manager, the name of the in-tree code a
// release builds, the cloud's call log as the reports count it, and
// host files mounted by role.

// ManagerSide is what a provider's manager has of its own: what
// --cloud-provider names, its cloud-configs, its workload and forms.
type ManagerSide struct {
	CloudProvider, CloudConfigPath, CCMCloudConfigPath, WorkloadName string
	Forms                                                            providers.ManagerForms
}

// KubeadmManager is a provider's manager as the procedures place it, with
// kubeadm's identity as a static pod (its kubeconfig, user and RBAC): that
// is kubeadm's way, not the provider's.
func KubeadmManager(m ManagerSide) providers.Manager {
	return providers.Manager{
		CloudProvider:            m.CloudProvider,
		CloudConfigPath:          m.CloudConfigPath,
		CCMCloudConfigPath:       m.CCMCloudConfigPath,
		CCMUser:                  CCMUser,
		CCMLeaderLockingRole:     CCMLeaderLockingRole,
		CCMRBAC:                  CCMRBAC,
		CCMStaticPodPath:         CCMStaticPodPath,
		CCMKubeconfigPath:        CCMKubeconfigPath,
		LeaderMigrationConfigMap: LeaderMigrationConfigMap,
		CCMWorkloadName:          m.WorkloadName,
		Forms:                    m.Forms,
	}
}

// LegacyInTreeCode is a provider's in-tree code as a Kubernetes release
// builds it into its managers and kubelets: k8s.io/legacy-cloud-providers,
// staged with the release as v0.<minor>.<patch> (the node image modules'
// go.mod replaces it so); "" for a release without it (its profile says).
func LegacyInTreeCode(provider, version string) string {
	r, err := nodeimage.Lookup(version)
	if err != nil || !r.InTreeCloud {
		return ""
	}
	if p, err := profiles.Lookup(provider, version); err != nil || !p.InTree.Value {
		return ""
	}
	return "k8s.io/legacy-cloud-providers/" + provider + "@v0." + strings.TrimPrefix(version, "v1.")
}

// APIActions are a cloud face's call log's counts as the reports take
// them.
func APIActions(counts []calllog.ActionCount) []providers.APIAction {
	out := make([]providers.APIAction, 0, len(counts))
	for _, c := range counts {
		out = append(out, providers.APIAction{Service: c.Service, Action: c.Action, Calls: c.Calls, Refused: c.Refused, Unimplemented: c.Unimplemented})
	}
	return out
}

// NodeFile is a file of a provider's state dir (Name, relative to it)
// mounted read-only at Path on every node, or on control planes only.
type NodeFile struct {
	Name, Path   string
	ControlPlane bool
}

// FileMounts are the files' mounts on a node of role.
func FileMounts(dir string, files []NodeFile, role v1alpha4.NodeRole) []v1alpha4.Mount {
	var out []v1alpha4.Mount
	for _, f := range files {
		if f.ControlPlane && role != v1alpha4.ControlPlaneRole {
			continue
		}
		out = append(out, v1alpha4.Mount{HostPath: filepath.Join(dir, f.Name), ContainerPath: f.Path, Readonly: true})
	}
	return out
}

// ValidateInTree refuses a cluster in a mode a provider's in-tree code
// cannot run: none (the provider needs a cloud), or in tree on a
// Kubernetes whose managers no longer build the provider (its profile
// says which: use is the version to name instead). ok is false for
// external mode, which the provider judges itself.
func ValidateInTree(provider string, in ClusterInput, removedIn, use string) (ok bool, err error) {
	switch in.Mode {
	case None:
		return true, fmt.Errorf("--provider %s needs a cloud: use --cloud in-tree or external", provider)
	case InTree:
		p, err := profiles.Lookup(provider, in.Topology.Kubernetes)
		if err != nil {
			return true, err
		}
		if !p.InTree.Value {
			return true, fmt.Errorf("--provider %s --cloud in-tree: Kubernetes %s has no in-tree %s provider (removed in %s): use --kubernetes %s", provider, in.Topology.Kubernetes, provider, removedIn, use)
		}
		return true, nil
	}
	return false, nil
}
