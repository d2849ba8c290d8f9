package cloudcluster

import (
	"strconv"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

// awsCCMKeyPath is the manager's key as the SDK's credentials file, on
// every control plane (the static-pod form reads it; a workload reads its
// Secret).
const awsCCMKeyPath = awsNodeDir + "/cloud-controller-manager.credentials"

// AWSInTreeCode is the in-tree aws provider a Kubernetes release builds
// into its managers and kubelets: k8s.io/legacy-cloud-providers, staged
// with the release as v0.<minor>.<patch> (the node image modules' go.mod
// replaces it so). "" for a release without it in tree (its profile says).
func AWSInTreeCode(v string) string {
	r, err := nodeimage.Lookup(v)
	if err != nil || !r.InTreeCloud {
		return ""
	}
	if p, err := profiles.Lookup(providers.AWS, v); err != nil || !p.InTree.Value {
		return ""
	}
	return "k8s.io/legacy-cloud-providers/aws@v0." + strings.TrimPrefix(v, "v1.")
}

// AWSCCMCode is the cloud-provider-aws release a node image carries.
func AWSCCMCode(version string) string {
	c, err := awsCCMOf(version)
	if err != nil {
		return ""
	}
	return "k8s.io/cloud-provider-aws@" + c.Version
}

// AWSCCMStaticPod is cloud-provider-aws's manager as a static pod, in the
// form kubeadm gives kube-controller-manager (the simulated provider's
// CCMStaticPod): its binary, the chart's arguments and the cluster's,
// the aws cloud-config, and its key as a credentials file.
func AWSCCMStaticPod(version, cluster, podSubnet string, extraArgs []string, files ...HostFile) string {
	image, _ := awsCCMImage(version)
	args := append([]string{awsCCMBinary,
		"--kubeconfig=" + CCMKubeconfigPath,
		"--authentication-kubeconfig=" + CCMKubeconfigPath,
		"--authorization-kubeconfig=" + CCMKubeconfigPath},
		cmdline.Merge(AWSCCMArgs(cluster, podSubnet), extraArgs)...)
	files = append([]HostFile{{"kubeconfig", CCMKubeconfigPath}, {"cloud-config", AWSCCMCloudConfigPath}, {"aws-credentials", awsCCMKeyPath}}, files...)
	return strings.Replace(staticPod(image, args, files), "    imagePullPolicy: IfNotPresent\n",
		"    imagePullPolicy: IfNotPresent\n    env:\n    - name: AWS_SHARED_CREDENTIALS_FILE\n      value: "+awsCCMKeyPath+"\n", 1)
}

// awsCCMBinary is where cloud-provider-aws's image keeps its manager.
const awsCCMBinary = "/bin/aws-cloud-controller-manager"

// AWSCCMWorkload is the chart's DaemonSet (a Deployment of replicas for
// form Deployment), with a leader-migration configuration mounted at path
// from a ConfigMap when config is not "".
func AWSCCMWorkload(form string, replicas int, version, cluster, podSubnet, config, path string, extraArgs ...string) string {
	m := AWSCCMManifest(version, cluster, podSubnet, extraArgs...)
	if form == Deployment {
		m = strings.Replace(m, "kind: DaemonSet\n", "kind: Deployment\n", 1)
		m = strings.Replace(m, "  updateStrategy:\n    type: RollingUpdate\n",
			"  replicas: "+strconv.Itoa(replicas)+"\n  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 1\n", 1)
		m = strings.Replace(m, "      hostNetwork: true\n", "      hostNetwork: true\n"+strings.ReplaceAll(antiAffinity, "component: cloud-controller-manager", "k8s-app: "+AWSCCMName), 1)
	}
	if config == "" {
		return m
	}
	return withLMConfig(m, "          ", config, path)
}

// AWSCCMImageOf is cloud-provider-aws's image in a version's node image
// ("": none).
func AWSCCMImageOf(version string) string {
	image, _ := awsCCMImage(version)
	return image
}

// AWSImageCredentials are the kubelet flags of a version's kubelet for the
// cloud's ECR.
func AWSImageCredentials(version string) map[string]string { return awsImageCredentials(version) }
