package aws

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// A worker joined from a control plane gets no manager's credentials and
// its own kubelet key, not the donor's; a control plane joined gets the
// managers' credentials and its own key; the donor's other binds stay.
func TestAJoinedNodeGetsItsOwnFiles(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	prepared(t)
	if _, err := issueKubeletKey("c1", "c1-control-plane"); err != nil {
		t.Fatal(err)
	}
	var donor []string
	for _, m := range (Provider{}).NodeMounts("c1", "c1-control-plane", v1alpha4.ControlPlaneRole) {
		donor = append(donor, m.HostPath+":"+m.ContainerPath+":ro")
	}
	donor = append(donor, "/srv/elsewhere:/opt/elsewhere:ro")
	hooks := cloudcluster.NodeHooks("c1", Provider{})
	keys := func() map[string]string {
		all, err := amazon.ReadKeys(filepath.Join(stateDir("c1"), "keys.json"))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for id, k := range all {
			out[k.Node] = id
		}
		return out
	}
	for _, tc := range []struct {
		node, role string
		managers   bool
	}{{"c1-worker3", kindcluster.RoleWorker, false}, {"c1-control-plane4", kindcluster.RoleControlPlane, true}} {
		binds, err := hooks.Binds(context.Background(), tc.node, tc.role, donor)
		if err != nil {
			t.Fatal(err)
		}
		at := map[string][]string{}
		for _, b := range binds {
			parts := strings.Split(b, ":")
			at[parts[1]] = append(at[parts[1]], parts[0])
		}
		for _, p := range []string{kcmCredentials, ccmKeyPath} {
			if got := len(at[p]) > 0; got != tc.managers {
				t.Errorf("%s (%s) mounts %s: %v", tc.node, tc.role, p, at[p])
			}
		}
		if env := at[kubeletEnvPath]; len(env) != 1 || env[0] != kubeletEnvFile("c1", tc.node) {
			t.Errorf("%s mounts the kubelet environments %v, want its own", tc.node, env)
		}
		all := keys()
		if id := all[tc.node]; id == "" || id == all["c1-control-plane"] {
			t.Errorf("%s's kubelet key %q (the donor's: %q)", tc.node, id, all["c1-control-plane"])
		}
		if !slices.Contains(binds, "/srv/elsewhere:/opt/elsewhere:ro") {
			t.Errorf("%s lost a bind that is not the cloud's: %v", tc.node, binds)
		}
		for p, hosts := range at {
			if len(hosts) > 1 {
				t.Errorf("%s mounts %s %d times", tc.node, p, len(hosts))
			}
		}
	}
}

// A node removed has its kubelet key revoked and its file removed; the
// other nodes' keys stay. A cluster whose cloud issued none has none to
// revoke.
func TestARemovedNodesKeyIsRevoked(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	prepared(t)
	for _, n := range []string{"c1-worker", "c1-worker2"} {
		if _, err := issueKubeletKey("c1", n); err != nil {
			t.Fatal(err)
		}
	}
	if err := cloudcluster.NodeHooks("c1", Provider{}).Gone(context.Background(), "c1-worker"); err != nil {
		t.Fatal(err)
	}
	keys, err := amazon.ReadKeys(filepath.Join(stateDir("c1"), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]bool{}
	for _, k := range keys {
		nodes[k.Node] = true
	}
	if nodes["c1-worker"] || !nodes["c1-worker2"] {
		t.Errorf("after c1-worker left, keys of %v", nodes)
	}
	if _, err := os.Stat(kubeletEnvFile("c1", "c1-worker")); !os.IsNotExist(err) {
		t.Errorf("a removed node's kubelet environment stays: %v", err)
	}
	if err := (Provider{}).NodeGone("c2", "c2-worker"); err != nil {
		t.Errorf("a cluster whose cloud issued no keys: %v", err)
	}
}
