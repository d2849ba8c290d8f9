package cloudcluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

// The admin token is the host's: written 0600 beside the cloud
// configuration, mounted into no node (no provider's either:
// TestNoProviderMountsTheAdminToken), and what the host's client carries
// instead of the nodes' token.
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
	for _, n := range fakeConfigured(newFakeCloud(), v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole).Nodes {
		if m, ok := mountsAdminToken(n, dir); ok {
			t.Errorf("a %s node mounts %s", n.Role, m)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, adminTokenFile), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Client("c1", "handover"); err == nil {
		t.Error("a short admin token accepted")
	}
}

// mountsAdminToken is a mount of n that holds the admin token of the
// cloud whose state is dir.
func mountsAdminToken(n v1alpha4.Node, dir string) (string, bool) {
	for _, m := range n.ExtraMounts {
		if strings.Contains(m.HostPath, adminTokenFile) || m.HostPath == dir || strings.HasPrefix(dir, m.HostPath+"/") {
			return m.HostPath, true
		}
	}
	return "", false
}
