package cloudcluster

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/internal/modsource"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
)

// kindNodeNames names nodes as kind v0.33.0 does: a counter a role, the
// first of a role without a number, in the configuration's order.
func TestKindNodeNamesFollowKind(t *testing.T) {
	cp, w := v1alpha4.Node{Role: v1alpha4.ControlPlaneRole}, v1alpha4.Node{Role: v1alpha4.WorkerRole}
	got := kindNodeNames("c1", []v1alpha4.Node{cp, w, cp, w, w, cp})
	want := []string{"c1-control-plane", "c1-worker", "c1-control-plane2", "c1-worker2", "c1-worker3", "c1-control-plane3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	dir := modsource.Dir(t, "sigs.k8s.io/kind@v0.33.0")
	namer, ok := modsource.Text(t, dir, "pkg/cluster/internal/providers/common/namer.go")
	for _, line := range []string{"count := 1", `suffix := ""`, "count += v", `suffix = fmt.Sprintf("%d", count)`,
		"counter[role] = count", `return fmt.Sprintf("%s-%s%s", clusterName, role, suffix)`} {
		if !ok || !strings.Contains(namer, line) {
			t.Errorf("kind's MakeNodeNamer no longer has %q", line)
		}
	}
	provision, ok := modsource.Text(t, dir, "pkg/cluster/internal/providers/docker/provision.go")
	if !ok || !strings.Contains(provision, "for i, node := range cfg.Nodes {\n\t\tname := nodeNamer(string(node.Role))") {
		t.Error("kind's docker provider no longer names the nodes in the configuration's order")
	}
}

// Each of a new aws cluster's nodes mounts its own kubelet key, issued
// before kind starts it: a key naming that node, a secret no other node
// holds, and no aws file missing at a mount's host path (which the engine
// would make a directory).
func TestEachNodeMountsItsOwnKubeletKey(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	if _, err := prepareAWS(context.Background(), "c1", awsEndpoints{gateway: "172.18.0.1", apiPort: 4000, metaPort: 4001, tlsPort: 4002, nodeNetwork: "172.18.0.0/16"}, nil); err != nil {
		t.Fatal(err)
	}
	cp, w := v1alpha4.Node{Role: v1alpha4.ControlPlaneRole}, v1alpha4.Node{Role: v1alpha4.WorkerRole}
	cfg := &v1alpha4.Cluster{Nodes: []v1alpha4.Node{cp, cp, w, w}}
	configure(cfg, External, "c1", "v1.27.4", providers.AWS)
	if err := issueKubeletKeys("c1", cfg.Nodes); err != nil {
		t.Fatal(err)
	}
	keys, err := amazon.ReadKeys(filepath.Join(awsStateDir("c1"), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{}
	for i, name := range []string{"c1-control-plane", "c1-control-plane2", "c1-worker", "c1-worker2"} {
		var env []string
		for _, m := range cfg.Nodes[i].ExtraMounts {
			if _, err := os.Stat(m.HostPath); err != nil && strings.HasPrefix(m.HostPath, awsStateDir("c1")) {
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
	if !strings.HasPrefix(env, "KUBELET_EXTRA_ARGS=\n") || !strings.Contains(env, "AWS_CA_BUNDLE="+awsCAPath+"\n") {
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
