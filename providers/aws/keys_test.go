package aws

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// Each of a new aws cluster's nodes mounts its own kubelet key, issued
// before kind starts it: a key naming that node, a secret no other node
// holds, and no aws file missing at a mount's host path (which the engine
// would make a directory).
func TestEachNodeMountsItsOwnKubeletKey(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	prepared(t)
	nodes := []struct {
		name string
		role v1alpha4.NodeRole
	}{{"c1-control-plane", v1alpha4.ControlPlaneRole}, {"c1-control-plane2", v1alpha4.ControlPlaneRole}, {"c1-worker", v1alpha4.WorkerRole}, {"c1-worker2", v1alpha4.WorkerRole}}
	// As a create does: the mounts of each node by the name kind gives it,
	// then its key, before kind starts it.
	mounts := map[string][]v1alpha4.Mount{}
	for _, n := range nodes {
		mounts[n.name] = Provider{}.NodeMounts("c1", n.name, n.role)
		if err := (Provider{}).NodeJoins("c1", n.name); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := amazon.ReadKeys(filepath.Join(stateDir("c1"), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{}
	for _, n := range nodes {
		name := n.name
		var env []string
		for _, m := range mounts[name] {
			if _, err := os.Stat(m.HostPath); err != nil && strings.HasPrefix(m.HostPath, stateDir("c1")) {
				t.Errorf("%s mounts %s, not written: %v", name, m.HostPath, err)
			}
			if m.ContainerPath == kubeletEnvPath {
				env = append(env, m.HostPath)
			}
		}
		if len(env) != 1 || env[0] != kubeletEnvFile("c1", name) {
			t.Fatalf("%s mounts the kubelet environments %v, want its own", name, env)
		}
		key := keyIn(t, keys, env[0])
		if key.Principal != "kubelet" || key.Node != name {
			t.Errorf("%s's kubelet holds the key of %q on %q", name, key.Principal, key.Node)
		}
		if other, dup := secrets[key.Secret]; dup {
			t.Errorf("%s and %s hold one secret", name, other)
		}
		secrets[key.Secret] = name
	}
}

// keyIn is the key of keys a kubelet environment file holds, which also
// makes the SDK trust the cluster's CA.
func keyIn(t *testing.T, keys awsapi.Keys, path string) awsapi.Key {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := string(raw)
	if !strings.HasPrefix(env, "KUBELET_EXTRA_ARGS=\n") || !strings.Contains(env, "AWS_CA_BUNDLE="+caPath+"\n") {
		t.Errorf("%s is not a kubelet environment trusting the cluster's CA:\n%s", path, env)
	}
	for id, k := range keys {
		if strings.Contains(env, "AWS_ACCESS_KEY_ID="+id+"\n") && strings.Contains(env, "AWS_SECRET_ACCESS_KEY="+k.Secret+"\n") {
			return k
		}
	}
	t.Errorf("%s holds no key the cloud serves", path)
	return awsapi.Key{}
}
