package cloudcluster_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/providers"
	_ "github.com/handover-sh/handover/providers/all"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// clouds are the registered providers' Clouds, by provider.
func clouds(t *testing.T) map[string]cloudcluster.Cloud {
	t.Helper()
	out := map[string]cloudcluster.Cloud{}
	for _, p := range providers.All() {
		if c, ok := providers.As[cloudcluster.Cloud](p); ok {
			out[p.Name()] = c
		}
	}
	if len(out) == 0 {
		t.Fatal("no provider is wired into clusters")
	}
	return out
}

// configured is cluster c1 as a create configures it for cloud.
func configured(cloud cloudcluster.Cloud, roles ...v1alpha4.NodeRole) *v1alpha4.Cluster {
	cfg := &v1alpha4.Cluster{}
	for _, r := range roles {
		cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{Role: r})
	}
	in := cloudcluster.ClusterInput{Topology: topology.Topology{Name: "c1", Kubernetes: "v1.27.4"}, Mode: cloudcluster.External}
	cloudcluster.Configure(cfg, in, cloud)
	return cfg
}

// The cloud's files a node joining later gets are those configure gives
// a cluster's first nodes, node by node, whatever the provider.
func TestConfigureMountsWhatAJoinGets(t *testing.T) {
	cp, w := v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole
	for name, cloud := range clouds(t) {
		cfg := configured(cloud, cp, cp, w, w)
		for i, node := range cloudcluster.KindNodeNames("c1", cfg.Nodes) {
			if want := cloudcluster.CloudNodeMounts("c1", cloud, node, cfg.Nodes[i].Role); !reflect.DeepEqual(cfg.Nodes[i].ExtraMounts, want) {
				t.Errorf("%s: %s mounts\n%v\nwant\n%v", name, node, cfg.Nodes[i].ExtraMounts, want)
			}
		}
	}
}

// No provider mounts the cloud's admin token into a node.
func TestNoProviderMountsTheAdminToken(t *testing.T) {
	dir := cloudcluster.StateDir("c1")
	for name, cloud := range clouds(t) {
		for _, n := range configured(cloud, v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole).Nodes {
			if m, ok := cloudcluster.MountsAdminToken(n, dir); ok {
				t.Errorf("%s: a %s node mounts %s", name, n.Role, m)
			}
		}
	}
}

// A cluster's node hooks and cleanup are its recorded provider's: its own
// Cloud, the default provider's for an imitation (and for a cloud made
// before the provider was recorded); a provider handover does not have is
// refused, naming those it has.
func TestClustersFindTheirProvider(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	dir := cloudcluster.StateDir("c1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, cloudcluster.CloudConfigFile), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	def, _ := providers.As[cloudcluster.Cloud](providers.Default())
	for _, p := range append(providers.All(), nil) {
		record, want := "", def
		if p != nil {
			record = p.Name()
			if c, ok := providers.As[cloudcluster.Cloud](p); ok {
				want = c
			} else if p.Runs() != providers.Imitated {
				continue
			}
		}
		if err := os.WriteFile(filepath.Join(dir, cloudcluster.ProviderFile), []byte(record+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := cloudcluster.CloudOf("c1"); !ok || err != nil || got != want {
			t.Errorf("a cluster made for %q is wired by %T (%v, %v), want %T", record, got, ok, err, want)
		}
		if err := cloudcluster.ValidateProvider(record); err != nil {
			t.Errorf("%q: %v", record, err)
		}
	}
	err := cloudcluster.ValidateProvider("no-such-cloud")
	if err == nil || !strings.Contains(err.Error(), strings.Join(providers.Names(), ", ")) {
		t.Errorf("an unknown provider: %v", err)
	}
}
