package cloudcluster

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
)

// awsCluster prepares cluster c1's aws files and its cloud's
// configuration, as a create does before kind runs.
func awsCluster(t *testing.T) {
	t.Helper()
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	if _, err := prepareAWS(context.Background(), "c1", awsEndpoints{gateway: "172.18.0.1", apiPort: 4000, metaPort: 4001, tlsPort: 4002, nodeNetwork: "172.18.0.0/16"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(StateDir("c1"), cloudConfigFile), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The cloud's files a node joining later gets are those configure gives
// a cluster's first nodes, node by node, on either cloud.
func TestConfigureMountsWhatAJoinGets(t *testing.T) {
	cp, w := v1alpha4.Node{Role: v1alpha4.ControlPlaneRole}, v1alpha4.Node{Role: v1alpha4.WorkerRole}
	for _, provider := range []string{providers.AWS, ProviderName} {
		cfg := &v1alpha4.Cluster{Nodes: []v1alpha4.Node{cp, cp, w, w}}
		configure(cfg, External, "c1", "v1.27.4", provider)
		for i, name := range kindNodeNames("c1", cfg.Nodes) {
			if want := cloudNodeMounts("c1", provider, name, cfg.Nodes[i].Role); !reflect.DeepEqual(cfg.Nodes[i].ExtraMounts, want) {
				t.Errorf("%s: %s mounts\n%v\nwant\n%v", provider, name, cfg.Nodes[i].ExtraMounts, want)
			}
		}
	}
}

// A worker joined from a control plane gets no manager's credentials and
// its own kubelet key, not the donor's; a control plane joined gets the
// managers' credentials and its own key; the donor's other binds stay.
func TestAJoinedNodeGetsItsOwnFiles(t *testing.T) {
	awsCluster(t)
	if _, err := IssueKubeletKey("c1", "c1-control-plane"); err != nil {
		t.Fatal(err)
	}
	var donor []string
	for _, m := range cloudNodeMounts("c1", providers.AWS, "c1-control-plane", v1alpha4.ControlPlaneRole) {
		donor = append(donor, bindOf(m))
	}
	donor = append(donor, "/srv/elsewhere:/opt/elsewhere:ro")
	hooks := nodeHooks("c1")
	if hooks.Binds == nil || hooks.Gone == nil {
		t.Fatal("an aws cluster's handle has no node hooks")
	}
	keys := func() map[string]string {
		all, err := amazon.ReadKeys(filepath.Join(awsStateDir("c1"), "keys.json"))
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
		for _, p := range []string{awsKCMCredentials, awsCCMKeyPath} {
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

// On the simulated cloud, a joined worker's binds are a first worker's.
func TestAJoinedSimulatedNodeGetsAWorkersFiles(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	if err := os.MkdirAll(StateDir("c1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(StateDir("c1"), cloudConfigFile), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &v1alpha4.Cluster{Nodes: []v1alpha4.Node{{Role: v1alpha4.ControlPlaneRole}, {Role: v1alpha4.WorkerRole}}}
	configure(cfg, External, "c1", "v1.30.14", ProviderName)
	var donor, worker []string
	for _, m := range cfg.Nodes[0].ExtraMounts {
		donor = append(donor, bindOf(m))
	}
	for _, m := range cfg.Nodes[1].ExtraMounts {
		worker = append(worker, bindOf(m))
	}
	binds, err := nodeHooks("c1").Binds(context.Background(), "c1-worker2", kindcluster.RoleWorker, donor)
	if err != nil || !reflect.DeepEqual(binds, worker) {
		t.Errorf("a joined worker binds %v (%v), want a first worker's %v", binds, err, worker)
	}
	if _, err := os.Stat(awsStateDir("c1")); err == nil {
		t.Error("a simulated cloud's join made aws files")
	}
}

// A node removed has its kubelet key revoked and its file removed; the
// other nodes' keys stay. A cluster without a cloud has no hooks.
func TestARemovedNodesKeyIsRevoked(t *testing.T) {
	awsCluster(t)
	for _, n := range []string{"c1-worker", "c1-worker2"} {
		if _, err := IssueKubeletKey("c1", n); err != nil {
			t.Fatal(err)
		}
	}
	if err := nodeHooks("c1").Gone(context.Background(), "c1-worker"); err != nil {
		t.Fatal(err)
	}
	keys, err := amazon.ReadKeys(filepath.Join(awsStateDir("c1"), "keys.json"))
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
	if h := nodeHooks("c2"); h.Binds != nil || h.Gone != nil {
		t.Error("a cluster without a cloud has node hooks")
	}
}

// Every handle that may join or remove a node is opened through Open, so
// that no node copies another's credentials: kindcluster.Open is called
// nowhere else outside the clusters layer.
func TestHandlesAreOpenedWithTheirHooks(t *testing.T) {
	open := regexp.MustCompile(`\bkindcluster\.Open\(`)
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(rel, "clusters"+string(filepath.Separator)) || rel == filepath.Join("simulate", "cloudcluster", "nodehooks.go") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err == nil && open.Match(raw) {
			t.Errorf("%s opens a cluster without its cloud's node hooks: use cloudcluster.Open", rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
