package cloudcluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloud/provider"
)

// The admin token is the host's: written 0600 beside the cloud
// configuration, mounted into no node of either cloud, and what the
// host's client carries instead of the nodes' token.
func TestTheAdminTokenStaysOnTheHost(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	dir := StateDir("c1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(provider.Config{URL: "http://172.18.0.1:4000", Token: strings.Repeat("n", 64)})
	if err := os.WriteFile(filepath.Join(dir, cloudConfigFile), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	admin, err := writeAdminToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, adminTokenFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the admin token's file: %v %v", fi, err)
	}
	c, err := Client("c1", "handover")
	if err != nil || c.Token != admin {
		t.Errorf("the host's client carries %q (%v), want the admin token", c.Token, err)
	}
	for _, provider := range []string{ProviderName, providers.AWS} {
		cfg := &v1alpha4.Cluster{Nodes: []v1alpha4.Node{{Role: v1alpha4.ControlPlaneRole}, {Role: v1alpha4.WorkerRole}}}
		configure(cfg, External, "c1", "v1.30.14", provider)
		for _, n := range cfg.Nodes {
			for _, m := range n.ExtraMounts {
				if strings.Contains(m.HostPath, adminTokenFile) || m.HostPath == dir || strings.HasPrefix(dir, m.HostPath+"/") {
					t.Errorf("%s: a %s node mounts %s", provider, n.Role, m.HostPath)
				}
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, adminTokenFile), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Client("c1", "handover"); err == nil {
		t.Error("a short admin token accepted")
	}
}
