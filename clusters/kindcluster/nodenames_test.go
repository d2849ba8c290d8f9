package kindcluster

import (
	"testing"
	"time"
)

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
	m.remember("c-worker", "ip-172-18-0-3.r.compute.internal", time.Now())
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

// A name is used without reading the flags again for nameFresh, then read
// again; a write of the flags by this process makes it stale at once; a
// container since gone keeps its last name.
func TestNodeNamesFreshness(t *testing.T) {
	var m nodeNames
	t0 := time.Unix(1000, 0)
	if _, ok := m.fresh("c1", t0); ok {
		t.Fatal("a name never read is fresh")
	}
	m.remember("c1", "ip-10-0-0-1.ec2.internal", t0)
	if n, ok := m.fresh("c1", t0.Add(nameFresh-time.Millisecond)); !ok || n != "ip-10-0-0-1.ec2.internal" {
		t.Fatalf("fresh within nameFresh = %q, %v", n, ok)
	}
	if _, ok := m.fresh("c1", t0.Add(nameFresh)); ok {
		t.Fatal("still fresh after nameFresh")
	}
	if _, ok := m.fresh("c1", t0.Add(-time.Second)); ok {
		t.Fatal("fresh before it was read (the clock stepped back)")
	}
	m.stale("c1")
	if _, ok := m.fresh("c1", t0); ok {
		t.Fatal("fresh after stale")
	}
	if n, ok := m.node("c1"); !ok || n != "ip-10-0-0-1.ec2.internal" {
		t.Fatalf("the last name is forgotten: %q, %v", n, ok)
	}
}
