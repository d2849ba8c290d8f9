package rehearsal

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/load"
	"github.com/handover-sh/handover/simulate/scale"
)

// The default rehearsal fits the 2-core machine it was measured on, under
// every load; more nodes than the cores or the memory hold are refused.
func TestNodesFitTheMachine(t *testing.T) {
	two := scale.Machine{Cores: 2, AvailableBytes: 20 << 30}
	for _, name := range load.Names() {
		if err := Peak(3, 2, load.Profiles[name]).Fit(two); err != nil {
			t.Errorf("3 + 2 under load %s: %v", name, err)
		}
	}
	cases := []struct {
		name  string
		nodes Nodes
		m     scale.Machine
		want  string
	}{
		{"too many for the cores", Peak(3, 6, load.Profiles["moderate"]), two, "4 control plane(s) and 8 worker(s) at once (one control plane more while one is replaced, 2 worker(s) joined by load moderate): this machine (2 cores, 20.0 GiB available) holds at most 10 kind nodes"},
		{"too many for the memory", Nodes{ControlPlanes: 4, Workers: 4}, scale.Machine{Cores: 8, AvailableBytes: 3 << 30}, "640 MiB a control plane and 256 MiB a worker"},
		{"a million control planes", Nodes{ControlPlanes: 1000000}, two, "1000000 control plane(s)"},
		{"workers beyond any sum", Nodes{ControlPlanes: 1, Workers: int(^uint(0) >> 1)}, scale.Machine{Cores: 1 << 20, AvailableBytes: 1 << 62}, "give fewer"},
		{"negative", Nodes{ControlPlanes: 1, Workers: -1}, two, "must not be negative"},
	}
	for _, tc := range cases {
		if err := tc.nodes.Fit(tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Counts no machine holds are refused by Validate at once, without
// building steps for each node.
func TestHugeCountsRefusedAtOnce(t *testing.T) {
	onMachine(t, 2, 20)
	cases := []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"a million control planes", func(c *Config) { c.ControlPlanes = 1000000 }, "--control-planes (controlPlanes) 1000000: at most 7"},
		{"a million workers", func(c *Config) { c.Workers = 1000000 }, "1000002 worker(s) at once"},
		{"more ccm replicas than control planes", func(c *Config) { c.Procedure, c.CCM.Form, c.CCM.Replicas = "rke2", "deployment", 4 }, "--ccm-replicas (ccm.replicas) 4: at most one per control plane"},
		{"a million ccm replicas", func(c *Config) { c.Procedure, c.CCM.Form, c.CCM.Replicas = "rke2", "deployment", 1000000 }, "at most 7"},
	}
	for _, tc := range cases {
		c := Default()
		tc.set(&c)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := c.Validate()
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %d MiB allocated in %s before refusing", tc.name, grew>>20, time.Since(start))
		}
	}
}

// A leader name is a Lease's name wherever it is given.
func TestLeaderNameIsALeaseName(t *testing.T) {
	onMachine(t, 2, 20)
	for _, bad := range []string{"'; touch x; '", "Upper", "a_b", strings.Repeat("a", 254)} {
		c := Default()
		c.LeaderName = bad
		if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "is not a Lease name") {
			t.Errorf("leaderName %q: %v", bad, err)
		}
	}
	c := Default()
	c.LeaderName = "my.migration-lease"
	if p, err := c.Validate(); err != nil || p.Spec.LeaderName != "my.migration-lease" {
		t.Fatalf("a good name: %v", err)
	}
}

// Every file a rehearsal names is a regular file of at most
// boundedfile.ConfigLimit, and not empty; each is refused at once.
func TestRehearsalFilesBounded(t *testing.T) {
	onMachine(t, 2, 20)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := write("big.yaml", "name: rehearsal\n"+strings.Repeat("# padding\n", 110000))
	for name, tc := range map[string]struct{ path, want string }{
		"empty":     {write("empty.yaml", ""), "empty.yaml is empty"},
		"blank":     {write("blank.yaml", "\n# nothing\n"), "sets nothing"},
		"FIFO":      {fifo, "is a named pipe (FIFO), not a regular file"},
		"device":    {"/dev/zero", "/dev/zero is a character device"},
		"directory": {dir, "is a directory"},
		"too large": {big, "more than the 1 MiB handover reads"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(tc.path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", name, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5s", name)
		}
	}
	// The files a rehearsal file names, too.
	for name, tc := range map[string]struct{ body, want string }{
		"a configuration from /dev/zero":   {"leaderMigration: {kcm: /dev/zero}\n", "/dev/zero is a character device"},
		"a configuration from a FIFO":      {"leaderMigration: {ccm: fifo}\n", "is a named pipe (FIFO)"},
		"an empty configuration":           {"leaderMigration: {ccm: empty.yaml}\n", "empty.yaml is empty"},
		"a manifest from /dev/zero":        {"procedure: rke2\nccm: {manifest: /dev/zero}\n", "/dev/zero is a character device"},
		"a side that is none":              {"leaderMigration: {scheduler: empty.yaml}\n", `leaderMigration: "scheduler" is not a side`},
		"a cloud-config from /dev/zero":    {"provider: aws\nfrom: v1.26.13\nto: v1.27.4\ncloudConfig: {kcm: /dev/zero}\n", "/dev/zero is a character device"},
		"a cloud-config side that is none": {"provider: aws\nfrom: v1.26.13\nto: v1.27.4\ncloudConfig: {kubelet: empty.yaml}\n", `cloudConfig: "kubelet" is not a side`},
	} {
		c, err := ReadFile(write("r.yaml", tc.body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		done := make(chan error, 1)
		go func() { _, err := c.Validate(); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", name, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still validating after 5s", name)
		}
	}
}
