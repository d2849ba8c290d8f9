package migrate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate"
)

// A stand-in binary in a cache laid out as the image build lays it out:
// the check runs it with the flags and --help and reports its "Error:" line.
func TestCheckFlagsReportsTheBinarysError(t *testing.T) {
	cache := t.TempDir()
	for _, v := range []string{"v1.30.14", "v1.31.4"} {
		dir := filepath.Join(cache, "bin", "kubernetes-"+v+"-0123456789abcdef")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\nfor a; do case $a in --bogus*) echo 'Usage:'; echo 'Error: unknown flag: --bogus'; exit 1;; esac; done\n"
		for _, c := range []string{"kube-controller-manager", "cloud-controller-manager"} {
			if err := os.WriteFile(filepath.Join(dir, c), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, ".done"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := migrate.DefaultSpec(migrate.TaskDoc)
	s.KCMArgs, s.CCMArgs = []string{"--leader-elect-lease-duration=60s"}, []string{"--bogus=1"}
	fs := s.CheckFlags(context.Background(), cache)
	if len(fs) != 1 || fs.Errors() != 1 || fs[0].Where != "--ccm-arg" || !strings.Contains(fs[0].Problem, "cloud-controller-manager v1.31.4 refuses --bogus=1: unknown flag: --bogus") {
		t.Fatalf("want the CCM's refusal only, got %v", fs)
	}
	fs = s.CheckFlags(context.Background(), t.TempDir())
	if fs.Errors() != 0 || len(fs) != 3 || !strings.Contains(fs.String(), "handover images build v1.30.14") {
		t.Fatalf("an empty cache: %v", fs)
	}
	if err := s.RequireFlags(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("a run with flags it cannot check: %v", err)
	}
	// A flag of the user's manifest is named as the manifest's.
	manifest := filepath.Join(t.TempDir(), "ccm.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ccm, namespace: kube-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: ccm\n        args: [--bogus-provider-flag=1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := migrate.ReadCCMManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	r := migrate.DefaultSpec(migrate.RKE2)
	r.CCMManifest = m
	fs = r.CheckFlags(context.Background(), cache)
	if len(fs) != 1 || fs[0].Where != "--ccm-manifest "+manifest || !strings.Contains(fs[0].Problem, "refuses --bogus-provider-flag=1") {
		t.Fatalf("a manifest's flag: %v", fs)
	}
}

// The real managers, when the image cache has them (CI builds them first).
func TestCheckFlagsAgainstTheManagers(t *testing.T) {
	cache := nodeimage.DefaultCacheDir()
	if _, err := nodeimage.ManagerBinary(cache, "v1.31.4", "cloud-controller-manager"); err != nil {
		if os.Getenv("HANDOVER_REQUIRE_TOOLS") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for _, tc := range []struct {
		kcm, ccm []string
		want     string
	}{
		{[]string{"--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s"}, []string{"--concurrent-service-syncs=2", "--configure-cloud-routes"}, ""},
		{[]string{"--no-such-flag=1"}, nil, "unknown flag: --no-such-flag"},
		{nil, []string{"--leader-elect-lease-duration=a minute"}, `invalid argument "a minute" for "--leader-elect-lease-duration"`},
		// kube-controller-manager's node lifecycle flags are not the cloud-controller-manager's.
		{nil, []string{"--node-monitor-grace-period=40s"}, "unknown flag: --node-monitor-grace-period"},
		// A bare flag that needs a value does not take the next one's.
		{[]string{"--cluster-name", "--v=2"}, nil, "flag needs an argument: --cluster-name"},
		{[]string{"--cloud_config_x=1"}, nil, "unknown flag"},
	} {
		s := migrate.DefaultSpec(migrate.TaskDoc)
		s.KCMArgs, s.CCMArgs = tc.kcm, tc.ccm
		fs := s.CheckFlags(context.Background(), cache)
		if (tc.want == "") != (len(fs) == 0) || !strings.Contains(fs.String(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.kcm, tc.ccm, fs, tc.want)
		}
	}
}
