package nodeimage

import (
	"os"
	"strings"
	"testing"
)

// The host's own root file system stands in for a Debian rootfs.
func TestRootfsCopierFollowsLibrariesAndLinks(t *testing.T) {
	if _, err := os.Stat("/usr/bin/ls"); err != nil {
		t.Skip("SKIPPING: no /usr/bin/ls on this host")
	}
	c := newRootfsCopier("/")
	if err := c.Add("/usr/bin/ls"); err != nil {
		t.Fatal(err)
	}
	var libc, loader bool
	for _, f := range c.Files() {
		libc = libc || strings.Contains(f.Path, "libc.so")
		loader = loader || strings.Contains(f.Path, "ld-linux")
	}
	if !libc || !loader {
		t.Fatalf("closure lacks libc (%v) or the loader (%v): %v", libc, loader, c.Files())
	}
	if err := c.Add("/no/such/binary"); err == nil {
		t.Fatal("want an error for a missing file")
	}
}

func TestKindLoadBalancerImageName(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/pkg/cluster/internal/loadbalancer"
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+"/const.go", []byte("package loadbalancer\n\nconst Image = \"docker.io/envoyproxy/envoy:v9\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := KindLoadBalancerImage(dir); err != nil || got != "docker.io/envoyproxy/envoy:v9" {
		t.Fatalf("got %q, %v", got, err)
	}
	if err := os.WriteFile(p+"/const.go", []byte("package loadbalancer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := KindLoadBalancerImage(dir); err == nil {
		t.Fatal("want an error when kind stops naming its image")
	}
}
