package cloudcluster

import (
	"context"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	kexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/cni"
	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/simulate/simcloud"
)

// Validate checks that a mode fits the cluster's Kubernetes version.
func Validate(mode Mode, t topology.Topology) error {
	switch mode {
	case None:
		return nil
	case InTree:
		r, err := nodeimage.Lookup(t.Kubernetes)
		if err != nil {
			return err
		}
		if !r.InTreeCloud {
			return fmt.Errorf("--cloud in-tree needs a kube-controller-manager that still has cloud loops: use --kubernetes v1.30.14 (%s has none)", t.Kubernetes)
		}
		return nil
	case External:
		_, err := nodeimage.Lookup(t.Kubernetes)
		return err
	}
	return fmt.Errorf("--cloud %q: use none, in-tree or external", mode)
}

// Create makes a cluster in the given cloud mode. self is the handover
// binary, which runs the cluster's simcloud in the background; workload
// (DaemonSet or Deployment) is how an external mode's CCM runs.
func Create(ctx context.Context, t topology.Topology, mode Mode, workload string, o kindcluster.CreateOptions, self string) (*kindcluster.Cluster, error) {
	if workload != DaemonSet && workload != Deployment {
		return nil, fmt.Errorf("--ccm %q: use %s or %s", workload, DaemonSet, Deployment)
	}
	if err := Validate(mode, t); err != nil {
		return nil, err
	}
	if mode == None {
		return kindcluster.Create(ctx, t, o)
	}
	if err := kindcluster.Preflight(ctx, t); err != nil {
		return nil, err
	}
	if _, err := startSimcloud(ctx, self, t.Name, t.PodSubnet); err != nil {
		return nil, err
	}
	if err := writeAuditPolicy(t.Name); err != nil {
		cleanup(context.Background(), t.Name, o.Logger)
		return nil, fmt.Errorf("writing the audit policy: %w", err)
	}
	o.Configure = func(cfg *v1alpha4.Cluster) { configure(cfg, mode, t.Name) }
	o.AfterCreate = func(ctx context.Context, c *kindcluster.Cluster) error {
		endpoint, err := c.InternalEndpoint()
		if err != nil {
			return err
		}
		if err := c.Apply(ctx, cni.CloudRoutesManifest(nodeimage.CNIImage, t.PodSubnet, endpoint, CloudConfigPath, t.Name)); err != nil {
			return err
		}
		if mode == External {
			return c.Apply(ctx, CCMManifest(workload, t.ControlPlanes, t.Kubernetes, t.Name, t.PodSubnet))
		}
		return nil
	}
	c, err := kindcluster.Create(ctx, t, o)
	if err != nil {
		cleanup(context.Background(), t.Name, o.Logger)
		return nil, err
	}
	return c, nil
}

// configure mounts the cloud configuration into every node and points the
// kubelets (and, in-tree, kube-controller-manager) at the cloud.
func configure(cfg *v1alpha4.Cluster, mode Mode, cluster string) {
	cfg.Networking.DisableDefaultCNI = true
	mount := v1alpha4.Mount{HostPath: filepath.Join(StateDir(cluster), "cloud-config.json"), ContainerPath: CloudConfigPath, Readonly: true}
	for i := range cfg.Nodes {
		cfg.Nodes[i].ExtraMounts = append(cfg.Nodes[i].ExtraMounts, mount)
	}
	configureAudit(cfg, cluster)
	if mode == External {
		// The CCM sets ProviderIDs; until it has, new nodes carry the
		// node.cloudprovider.kubernetes.io/uninitialized taint.
		kubelet := "\n  kubeletExtraArgs:\n    cloud-provider: external\n    provider-id: \"\""
		cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches,
			"kind: InitConfiguration\nnodeRegistration:"+kubelet,
			"kind: JoinConfiguration\nnodeRegistration:"+kubelet)
		return
	}
	kubelet := `
  kubeletExtraArgs:
    cloud-provider: ` + ProviderName + `
    cloud-config: ` + CloudConfigPath + `
    provider-id: ""`
	cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches,
		`kind: ClusterConfiguration
controllerManager:
  extraArgs:
    cloud-provider: `+ProviderName+`
    cloud-config: `+CloudConfigPath+`
    cluster-name: `+cluster+`
    feature-gates: DisableCloudProviders=false
  extraVolumes:
  - name: cloud-config
    hostPath: `+CloudConfigPath+`
    mountPath: `+CloudConfigPath+`
    readOnly: true
    pathType: File`,
		"kind: InitConfiguration\nnodeRegistration:"+kubelet,
		"kind: JoinConfiguration\nnodeRegistration:"+kubelet,
		"kind: KubeletConfiguration\nfeatureGates:\n  DisableCloudProviders: false")
}

// ProviderName is the simulated cloud provider the managers and kubelets
// are started with.
const ProviderName = "kind"

// Delete deletes the cluster, its load balancers and its simcloud.
func Delete(ctx context.Context, name, kubeconfig string, logger log.Logger) error {
	if err := kindcluster.DeleteByName(ctx, name, kubeconfig, logger); err != nil {
		return err
	}
	cleanup(ctx, name, logger)
	return nil
}

// cleanup removes what the simulated cloud made for a cluster.
func cleanup(ctx context.Context, name string, logger log.Logger) {
	stopSimcloud(name)
	ids, _ := kexec.OutputLines(kexec.CommandContext(ctx, "docker", "ps", "-aq", "--filter", "label="+simcloud.ClusterLabel+"="+name))
	if len(ids) > 0 {
		if err := kexec.CommandContext(ctx, "docker", append([]string{"rm", "-f", "-v"}, ids...)...).Run(); err != nil {
			logger.Warnf("removing load balancers of %s: %v", name, err)
		}
	}
}
