package aws

import (
	"strconv"
	"strings"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// ccmKeyPath is the manager's key as the SDK's credentials file, on
// every control plane (the static-pod form reads it; a workload reads its
// Secret).
const ccmKeyPath = nodeDir + "/cloud-controller-manager.credentials"

// ccmBinary is where cloud-provider-aws's image keeps its manager.
const ccmBinary = "/bin/aws-cloud-controller-manager"

// forms are cloud-provider-aws's manager's forms.
type forms struct{}

func (forms) Image(version string) string {
	image, _ := ccmImage(version)
	return image
}

func (forms) Kubeconfig(conf, caCert, caKey []byte) (string, error) {
	return cloudcluster.CCMKubeconfig(conf, caCert, caKey)
}

// StaticPod is cloud-provider-aws's manager as a static pod, in the form
// kubeadm gives kube-controller-manager (the simulated provider's
// cloudcluster.CCMStaticPod): its binary, the chart's arguments and the
// cluster's, the aws cloud-config, and its key as a credentials file.
func (forms) StaticPod(in providers.StaticPodInput) string {
	image, _ := ccmImage(in.Version)
	args := append([]string{ccmBinary,
		"--kubeconfig=" + cloudcluster.CCMKubeconfigPath,
		"--authentication-kubeconfig=" + cloudcluster.CCMKubeconfigPath,
		"--authorization-kubeconfig=" + cloudcluster.CCMKubeconfigPath},
		cmdline.Merge(CCMArgs(in.Cluster, in.PodSubnet), in.Args)...)
	files := append([]cloudcluster.HostFile{{Name: "kubeconfig", Path: cloudcluster.CCMKubeconfigPath}, {Name: "cloud-config", Path: CCMCloudConfigPath},
		{Name: "aws-credentials", Path: ccmKeyPath}}, cloudcluster.HostFiles(in.Files)...)
	return strings.Replace(cloudcluster.StaticPodManifest(image, args, files), "    imagePullPolicy: IfNotPresent\n",
		"    imagePullPolicy: IfNotPresent\n    env:\n    - name: AWS_SHARED_CREDENTIALS_FILE\n      value: "+ccmKeyPath+"\n", 1)
}

// Workload is the chart's DaemonSet (a Deployment of replicas for form
// Deployment), with a leader-migration configuration mounted from a
// ConfigMap when the input has one.
func (forms) Workload(in providers.WorkloadInput) string {
	m := chartManifest(in.Version, in.Cluster, in.PodSubnet, in.Args...)
	if in.Form == cloudcluster.Deployment {
		m = strings.Replace(m, "kind: DaemonSet\n", "kind: Deployment\n", 1)
		m = strings.Replace(m, "  updateStrategy:\n    type: RollingUpdate\n",
			"  replicas: "+strconv.Itoa(in.Replicas)+"\n  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 1\n", 1)
		m = strings.Replace(m, "      hostNetwork: true\n", "      hostNetwork: true\n"+strings.ReplaceAll(cloudcluster.AntiAffinity, "component: cloud-controller-manager", "k8s-app: "+CCMName), 1)
	}
	if in.Config == "" {
		return m
	}
	return cloudcluster.WithLeaderMigrationConfig(m, "          ", in.Config, in.ConfigPath)
}

// NodeManager: the manager's own cloud-node controller initialises Nodes.
func (forms) NodeManager(string) string { return "" }
