package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// runCLI runs the root command with args, as main does, and returns its
// error (classed: exitcode.Of is the exit code).
func runCLI(t *testing.T, args ...string) error {
	t.Helper()
	_, err := runCLIOut(t, args...)
	return err
}

func TestBadInputFailsWithOneLineFix(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("controlPlanes: [3"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "good.yaml")
	if err := os.WriteFile(good, []byte("controlPlanes: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"zero control planes": {[]string{"cluster", "create", "--control-planes", "0"}, "at least 1 control-plane"},
		"unknown version":     {[]string{"cluster", "create", "--kubernetes", "v1.99.1"}, "unknown Kubernetes version"},
		"malformed topology":  {[]string{"cluster", "create", "--config", bad}, "not a valid topology"},
		"flags contradict":    {[]string{"cluster", "create", "--config", good, "--workers", "1"}, "--workers and --config"},
		"bad role":            {[]string{"cluster", "add-node", "--role", "master"}, "use control-plane or worker"},
		"unknown image":       {[]string{"images", "build", "v1.2.3"}, "unknown Kubernetes version"},
		"nothing on demand":   {[]string{"images", "build", "--provider", "azure", "v1.31.4"}, "azure has no on-demand components for v1.31.4: it has them for v1.30.14"},
		"unknown cloud mode":  {[]string{"cluster", "create", "--cloud", "aws"}, "use none, in-tree or external"},
		"bad ccm workload":    {[]string{"cluster", "create", "--cloud", "external", "--ccm-form", "static"}, "use daemonset or deployment"},
		"in-tree on 1.31":     {[]string{"cluster", "create", "--cloud", "in-tree", "--kubernetes", "v1.31.4"}, "still has cloud loops"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := runCLI(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got %v", c.want, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestFaultsFromFlags(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f, err := faultsFromFlags([]string{"*=0.5", "CreateRoute=1"}, time.Second, 2, time.Minute, now)
	if err != nil {
		t.Fatal(err)
	}
	if f.ErrorRate["*"] != 0.5 || f.ErrorRate["CreateRoute"] != 1 || f.Latency.Duration != time.Second || f.ThrottleQPS != 2 ||
		len(f.Outages) != 1 || !f.Outages[0].End.Equal(now.Add(time.Minute)) {
		t.Fatalf("knobs %+v", f)
	}
	for _, bad := range []string{"EnsureLoadBalancer", "=0.5", "x=2", "x=-1", "x=abc"} {
		if _, err := faultsFromFlags([]string{bad}, 0, 0, 0, now); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: want a one-line error, got %v", bad, err)
		}
	}
	deny, err := denyFromFlags([]string{"cloud-controller-manager=CreateRoute,DeleteRoute", "kubelet=*"})
	if err != nil || !slices.Equal(deny["cloud-controller-manager"], []string{"CreateRoute", "DeleteRoute"}) || !slices.Equal(deny["kubelet"], []string{"*"}) {
		t.Fatalf("--deny: %v %v", deny, err)
	}
	for _, bad := range []string{"CreateRoute", "=CreateRoute", "ccm=", "ccm=A,,B"} {
		if _, err := denyFromFlags([]string{bad}); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("--deny %q: want a one-line error, got %v", bad, err)
		}
	}
	scope, err := scopeFromFlags([]string{"cloud-controller-manager=sim-region-1a"})
	if err != nil || scope["cloud-controller-manager"] != "sim-region-1a" {
		t.Fatalf("--scope: %v %v", scope, err)
	}
	for _, bad := range [][]string{{"sim-region-1a"}, {"=sim-region-1"}, {"ccm="}, {"ccm=a", "ccm=b"}} {
		if _, err := scopeFromFlags(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("--scope %q: want a one-line error, got %v", bad, err)
		}
	}
	if err := runCLI(t, "simcloud", "faults", "--name", "no-such-cluster"); err == nil || !strings.Contains(err.Error(), "has no simulated cloud") {
		t.Errorf("unknown cluster: %v", err)
	}
}
