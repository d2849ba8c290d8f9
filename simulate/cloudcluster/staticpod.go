package cloudcluster

import (
	"maps"
	"slices"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/cmdline"
)

// CCMKubeconfigPath is where a static-pod cloud-controller-manager finds
// its kubeconfig on a control-plane node.
const CCMKubeconfigPath = "/etc/kubernetes/cloud-controller-manager.conf"

// CCMStaticPodPath is the static pod manifest of the cloud-controller-manager.
const CCMStaticPodPath = "/etc/kubernetes/manifests/cloud-controller-manager.yaml"

// HostFile is a file of the node mounted into a static pod at the same path.
type HostFile struct{ Name, Path string }

// HostFiles are a provider's host files (volume name → path) in volume
// name order, as the static pods mount them.
func HostFiles(files map[string]string) []HostFile {
	var hf []HostFile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		hf = append(hf, HostFile{Name: name, Path: files[name]})
	}
	return hf
}

// CCMStaticPod is the cloud-controller-manager as a static pod on a
// control-plane node, like kubeadm's kube-controller-manager: host network,
// its own kubeconfig, the cloud config, and any extra files (the leader
// migration configuration).
func CCMStaticPod(version, cluster, podSubnet string, extraArgs []string, files ...HostFile) string {
	args := append([]string{"/usr/local/bin/cloud-controller-manager",
		"--kubeconfig=" + CCMKubeconfigPath,
		"--authentication-kubeconfig=" + CCMKubeconfigPath,
		"--authorization-kubeconfig=" + CCMKubeconfigPath},
		cmdline.Merge(CCMArgs(cluster, podSubnet), extraArgs)...)
	files = append([]HostFile{{"kubeconfig", CCMKubeconfigPath}, {"cloud-config", CloudConfigPath}}, files...)
	return StaticPodManifest(nodeimage.CCMImage(version), args, files)
}

// StaticPodManifest is a cloud-controller-manager's static pod in the
// form kubeadm gives kube-controller-manager: image, command, and each
// host file mounted at its own path. A provider's manager in static-pod
// form is one.
func StaticPodManifest(image string, args []string, files []HostFile) string {
	var mounts, volumes strings.Builder
	for _, f := range files {
		mounts.WriteString("    - name: " + f.Name + "\n      mountPath: " + f.Path + "\n      readOnly: true\n")
		volumes.WriteString("  - name: " + f.Name + "\n    hostPath:\n      path: " + f.Path + "\n      type: File\n")
	}
	return strings.NewReplacer("IMAGE", image, "ARGS\n", ArgLines(args, 4),
		"MOUNTS\n", mounts.String(), "VOLUMES\n", volumes.String()).Replace(ccmStaticPod)
}

const ccmStaticPod = `apiVersion: v1
kind: Pod
metadata:
  name: cloud-controller-manager
  namespace: kube-system
  labels:
    component: cloud-controller-manager
    tier: control-plane
spec:
  hostNetwork: true
  priorityClassName: system-node-critical
  securityContext:
    seccompProfile:
      type: RuntimeDefault
  containers:
  - name: cloud-controller-manager
    image: IMAGE
    imagePullPolicy: IfNotPresent
    command:
ARGS
    livenessProbe:
      httpGet:
        host: 127.0.0.1
        path: /healthz
        port: 10258
        scheme: HTTPS
      initialDelaySeconds: 10
      periodSeconds: 10
      timeoutSeconds: 15
      failureThreshold: 8
    resources:
      requests:
        cpu: 50m
    volumeMounts:
MOUNTS
  volumes:
VOLUMES
`
