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
