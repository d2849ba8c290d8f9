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

	"github.com/handover-sh/handover/clusters/topology"
)

// binds are a node's mounts as kind gives them to the engine.
func binds(ms []v1alpha4.Mount) []string {
	var out []string
	for _, m := range ms {
		out = append(out, bindOf(m))
	}
	return out
}

// fakeConfigured is cluster c1 of nodes as configure makes it for cloud.
func fakeConfigured(cloud Cloud, nodes ...v1alpha4.NodeRole) *v1alpha4.Cluster {
	cfg := &v1alpha4.Cluster{}
	for _, r := range nodes {
		cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{Role: r})
	}
	configure(cfg, ClusterInput{Topology: topology.Topology{Name: "c1", Kubernetes: "v1.30.14"}, Mode: External}, cloud)
	return cfg
}

// A node joined later gets what a cluster's first node of its role got,
// its own files (not its donor's, a control plane's), the provider told
// of it first; the donor's other binds stay, none twice.
func TestAJoinedNodeGetsAFirstNodesFiles(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	cp, w := v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole
	cloud := newFakeCloud()
	cfg := fakeConfigured(cloud, cp, w, w, cp)
	donor := append(binds(cfg.Nodes[0].ExtraMounts), "/srv/elsewhere:/opt/elsewhere:ro")
	hooks := NodeHooks("c1", cloud)
	for i, node := range kindNodeNames("c1", cfg.Nodes) {
		if i == 0 {
			continue
		}
		got, err := hooks.Binds(context.Background(), node, string(cfg.Nodes[i].Role), donor)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]string{"/srv/elsewhere:/opt/elsewhere:ro"}, binds(cfg.Nodes[i].ExtraMounts)...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s (%s) binds\n%v\nwant\n%v", node, cfg.Nodes[i].Role, got, want)
		}
		if !told(cloud.joined, node) {
			t.Errorf("the provider was not told of %s joining", node)
		}
	}
}

// A node removed is the provider's to end; a cluster without a cloud has
// no hooks.
func TestARemovedNodeIsTheProvidersToEnd(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	cloud := newFakeCloud()
	if err := NodeHooks("c1", cloud).Gone(context.Background(), "c1-worker"); err != nil || !told(cloud.gone, "c1-worker") {
		t.Errorf("the provider was not told of c1-worker gone: %v", err)
	}
	if _, ok, err := cloudOf("c2"); ok || err != nil {
		t.Errorf("a cluster without a cloud has one (%v)", err)
	}
}

// configure mounts every node's files in kind's name for it, and the
// provider gets no node's mounts but those.
func TestConfigureMountsEachNodeByItsName(t *testing.T) {
	cloud := newFakeCloud()
	cfg := fakeConfigured(cloud, v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole, v1alpha4.WorkerRole)
	for i, name := range kindNodeNames("c1", cfg.Nodes) {
		own := filepath.Join(StateDir("c1"), "fake", "nodes", name)
		if !slices.ContainsFunc(cfg.Nodes[i].ExtraMounts, func(m v1alpha4.Mount) bool { return m.HostPath == own }) {
			t.Errorf("%s does not mount its own files: %v", name, cfg.Nodes[i].ExtraMounts)
		}
	}
	if p := cfg.KubeadmConfigPatches; len(p) != 2 || p[0] != auditPatch || p[1] != "kind: JoinConfiguration" {
		t.Errorf("patches %q: the audit's, then the provider's", p)
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
