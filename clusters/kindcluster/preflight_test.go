package kindcluster

import (
	"context"
	"sigs.k8s.io/yaml"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/topology"
)

func TestPreflightRejectsBadInputBeforeDocker(t *testing.T) {
	bad := topology.Default()
	bad.ControlPlanes = 0
	if err := Preflight(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "at least 1 control-plane") {
		t.Fatalf("got %v", err)
	}
	bad = topology.Default()
	bad.Kubernetes = "v1.12.0"
	if err := Preflight(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "unknown Kubernetes version") {
		t.Fatalf("got %v", err)
	}
}

func TestPreflightSaysWhenDockerIsUnreachable(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	err := Preflight(context.Background(), topology.Default())
	if err == nil || !strings.Contains(err.Error(), "Docker engine is not reachable") {
		t.Fatalf("got %v", err)
	}
}

func TestRenderJoinConfig(t *testing.T) {
	cfg := renderJoinConfig(joinData{Endpoint: "lb:6443", Token: "abc.def", CAHash: "sha256:00", Address: "172.18.0.9", NodeIP: "172.18.0.9",
		KubeletArgs: map[string]string{"provider-id": "kind://docker/c/n"}, ControlPlane: true})
	for _, want := range []string{`apiServerEndpoint: "lb:6443"`, `- "sha256:00"`, `advertiseAddress: "172.18.0.9"`, `node-ip: "172.18.0.9"`, `provider-id: "kind://docker/c/n"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("join config lacks %s:\n%s", want, cfg)
		}
	}
	// A cluster whose kubelets have no node IP: the control plane still
	// advertises its address.
	unpinned := renderJoinConfig(joinData{Address: "172.18.0.9", ControlPlane: true})
	if !strings.Contains(unpinned, `advertiseAddress: "172.18.0.9"`) || !strings.Contains(unpinned, `node-ip: ""`) {
		t.Errorf("unpinned join config:\n%s", unpinned)
	}
	if strings.Contains(renderJoinConfig(joinData{}), "controlPlane:") {
		t.Error("a worker join config must not have a controlPlane section")
	}
	if strings.Contains(cfg, "  name:") {
		t.Errorf("a node named by its hostname got a name:\n%s", cfg)
	}
	named := renderJoinConfig(joinData{Name: NodeNameFromMetadata})
	var doc struct {
		NodeRegistration struct {
			Name             string            `json:"name"`
			KubeletExtraArgs map[string]string `json:"kubeletExtraArgs"`
		} `json:"nodeRegistration"`
	}
	if err := yaml.Unmarshal([]byte(named), &doc); err != nil || doc.NodeRegistration.Name != NodeNameFromMetadata || doc.NodeRegistration.KubeletExtraArgs["node-ip"] != "" {
		t.Errorf("a node named from its metadata: %+v %v\n%s", doc, err, named)
	}
}

func TestSameHealthy(t *testing.T) {
	want := []string{"a:1", "b:1"}
	cases := map[string]struct {
		have map[string]bool
		ok   bool
	}{
		"exact":      {map[string]bool{"a:1": true, "b:1": true}, true},
		"unhealthy":  {map[string]bool{"a:1": true, "b:1": false}, false},
		"extra":      {map[string]bool{"a:1": true, "b:1": true, "c:1": true}, false},
		"missing":    {map[string]bool{"a:1": true}, false},
		"unreadable": {nil, false},
	}
	for name, c := range cases {
		if got := sameHealthy(c.have, want); got != c.ok {
			t.Errorf("%s: got %v", name, got)
		}
	}
}

func TestKubeletArgsFromDonor(t *testing.T) {
	kindNode := `KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --node-ip=172.18.0.3 --node-labels= --pod-infra-container-image=registry.k8s.io/pause:3.9 --provider-id=kind://docker/c/c-worker"`
	got := kubeletArgsFrom(kindNode, "c", "c-worker3")
	if len(got) != 1 || got["provider-id"] != "kind://docker/c/c-worker3" {
		t.Fatalf("kind node: %v", got)
	}
	inTree := `KUBELET_KUBEADM_ARGS="--cloud-config=/etc/kubernetes/cloud-config.json --cloud-provider=kind --node-ip=172.18.0.3 --provider-id="`
	got = kubeletArgsFrom(inTree, "c", "n")
	if len(got) != 2 || got["cloud-provider"] != "kind" || got["cloud-config"] != "/etc/kubernetes/cloud-config.json" {
		t.Fatalf("in-tree node: %v", got)
	}
}
