package kindcluster

import "testing"

// A node's name is its kubelet's hostname override, as kubeadm writes it.
func TestHostnameOverride(t *testing.T) {
	for flags, want := range map[string]string{
		`KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --hostname-override=ip-172-18-0-3.r.compute.internal --node-ip=172.18.0.3 --pod-infra-container-image=registry.k8s.io/pause:3.9"` + "\n": "ip-172-18-0-3.r.compute.internal",
		`KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --node-ip=172.18.0.3"`:                                                                                                                   "",
		"": "",
	} {
		if got := HostnameOverride(flags); got != want {
			t.Errorf("%q: got %q, want %q", flags, got, want)
		}
	}
	var m nodeNames
	m.remember("c-worker", "ip-172-18-0-3.r.compute.internal")
	if n, ok := m.node("c-worker"); !ok || n != "ip-172-18-0-3.r.compute.internal" {
		t.Errorf("remembered %q", n)
	}
}

// A node joins with a node IP when the node it is joined from has one:
// kind's always do; a cluster made without (kubeadm's empty node-ip)
// keeps its new nodes without.
func TestPinsNodeIP(t *testing.T) {
	for flags, want := range map[string]bool{
		`KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --node-ip=172.18.0.3 --provider-id="` + "\n": true,
		`KUBELET_KUBEADM_ARGS="--cloud-provider=aws --node-ip= --hostname-override=ip-172-18-0-3.r.compute.internal"` + "\n":                    false,
		`KUBELET_KUBEADM_ARGS="--cloud-provider=aws"`: false,
	} {
		if got := pinsNodeIP(flags); got != want {
			t.Errorf("%q: got %v, want %v", flags, got, want)
		}
	}
}
