package migrate_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/migrate"
)

// A user's files are installed byte for byte, comments and all, on the
// managers of their side; "default" leaves the side without a file.
func TestUserConfigsInstalledAsGiven(t *testing.T) {
	dir := t.TempDir()
	kcmFile := filepath.Join(dir, "kcm.yaml")
	body, err := os.ReadFile("../examples/taskdoc-verbatim/kcm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	given := "# ours, as reviewed\n" + strings.ReplaceAll(string(body), "route", "node-route-controller")
	if err := os.WriteFile(kcmFile, []byte(given), 0o644); err != nil {
		t.Fatal(err)
	}
	s := taskDocSpec()
	if err := s.SetUserConfigs([]string{"kcm=" + kcmFile, "ccm=" + migrate.BuiltInDefault}); err != nil {
		t.Fatal(err)
	}
	f := newFakeEnv(t, s)
	for _, name := range []string{"grant-migration-lease", "write-initial-config", "enable-leader-migration", "prepare-n1-cluster-configuration", "add-n1-control-plane-1"} {
		f.do(t, f.step(t, name))
	}
	if got := f.file(t, f.cps[0], lmConfig); got != given {
		t.Errorf("installed:\n%s\nwant, byte for byte:\n%s", got, given)
	}
	n1 := lastNode(t, f)
	if _, err := f.kind.ReadFile(t.Context(), n1, lmConfig); err == nil {
		t.Error("a file on the N+1 control plane, whose CCM uses the built-in default")
	}
	pod := f.file(t, n1, "/etc/kubernetes/manifests/cloud-controller-manager.yaml")
	if !strings.Contains(pod, "--enable-leader-migration") || strings.Contains(pod, "--leader-migration-config") {
		t.Errorf("CCM with the built-in default:\n%s", pod)
	}
}

// Bad input is refused before anything is built.
func TestUserConfigErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pod := write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n")
	typo := write("typo.yaml", "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1alpha1\nleaderName: x\nresourceLock: leases\ncontrollerLeader: []\n")
	for arg, want := range map[string]string{
		"kcm=" + filepath.Join(dir, "missing.yaml"): "no such file",
		"kcm=" + pod:   "not a LeaderMigrationConfiguration",
		"kube=" + typo: "only kcm= and ccm= name a side",
		"kcm.yaml":     "write kcm=FILE or ccm=FILE",
	} {
		s := migrate.DefaultSpec(migrate.TaskDoc)
		if err := s.SetUserConfigs([]string{arg}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
	s := migrate.DefaultSpec(migrate.TaskDoc)
	if err := s.SetUserConfigs([]string{"kcm=" + typo, "kcm=default"}); err == nil || !strings.Contains(err.Error(), "kcm= is given twice") {
		t.Errorf("a side given twice: %v", err)
	}
	// An unknown field is read as the managers read it (dropped); the
	// preflight lint makes it an error.
	s = migrate.DefaultSpec(migrate.TaskDoc)
	if err := s.SetUserConfigs([]string{"ccm=" + typo}); err != nil {
		t.Fatal(err)
	}
	if f := s.Lint(); f.Errors() == 0 || !strings.Contains(f.String(), "controllerLeader: is not a field") {
		t.Errorf("lint of a misspelt field:\n%s", f)
	}
	s = migrate.DefaultSpec(migrate.TaskDoc)
	s.Mistake = migrate.MistakeNoCCM
	if err := s.SetUserConfigs([]string{"kcm=default"}); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Build(s); err == nil || !strings.Contains(err.Error(), "contradict") {
		t.Errorf("a mistake with the user's configuration: %v", err)
	}
}

// The user's manager flags reach every manager of their side: the N
// kube-controller-managers when leader migration is enabled, the N+1 ones
// through the ClusterConfiguration they join with, and the
// cloud-controller-manager, where a flag replaces the procedure's own.
func TestManagerArgsReachEveryManager(t *testing.T) {
	s := taskDocSpec()
	s.KCMArgs = []string{"--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s"}
	s.CCMArgs = []string{"--leader-elect-lease-duration=60s", "--v=4"}
	f := newFakeEnv(t, s)
	f.walk(t, "grant-migration-lease", "write-initial-config", "enable-leader-migration", "prepare-n1-cluster-configuration", "add-n1-control-plane-1")
	has := func(node, component string, want ...string) {
		t.Helper()
		pod := f.file(t, node, "/etc/kubernetes/manifests/"+component+".yaml")
		for _, w := range want {
			if strings.Count(pod, w) != 1 {
				t.Errorf("%s on %s: want %s once in\n%s", component, node, w, pod)
			}
		}
	}
	has(f.cps[0], "kube-controller-manager", "--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s", "--enable-leader-migration")
	n1 := lastNode(t, f)
	has(n1, "kube-controller-manager", "--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s")
	has(n1, "cloud-controller-manager", "--leader-elect-lease-duration=60s", "--v=", "--v=4")
	if d, basis := s.MaxGap(); d != 85*time.Second || !strings.Contains(basis, "lease 1m0s + 4.4 × retry 2s + headroom 16.2s") {
		t.Errorf("max-gap %s: %s", d, basis)
	}
	p, err := migrate.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Spec.Intervals.Of(migrate.IntervalMainLeaseHandoff); got != 105*time.Second {
		t.Errorf("main-lease-handoff with a 60s lease: %s", got)
	}
}

// Flags handover sets itself, and flags that are not flags, are refused
// before anything is built.
func TestManagerArgsRefused(t *testing.T) {
	for _, tc := range []struct {
		kcm, ccm []string
		want     string
	}{
		{[]string{"--cloud-provider=aws"}, nil, "--kcm-arg --cloud-provider=aws: handover sets --cloud-provider itself"},
		{nil, []string{"--leader-migration-config=/x"}, "--leader-migration-config kcm=FILE|default"},
		{nil, []string{"v=4"}, `--ccm-arg "v=4": write a manager flag as --name=value`},
		{[]string{"--cluster-name="}, nil, "give the flag a value"},
		{[]string{"--enable_leader_migration"}, nil, "handover sets --enable-leader-migration itself"},
		{nil, []string{"--leader-elect-resource-name=ccm"}, "by their default names"},
	} {
		s := taskDocSpec()
		s.KCMArgs, s.CCMArgs = tc.kcm, tc.ccm
		if _, err := migrate.Build(s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.kcm, tc.ccm, err, tc.want)
		}
	}
}

// Only kcm and ccm before the first "=" name a side; anything else is a
// path as a whole.
func TestCutSide(t *testing.T) {
	for arg, want := range map[string][2]string{
		"kcm=kcm.yaml":     {"kcm", "kcm.yaml"},
		"ccm=default":      {"ccm", "default"},
		"kcm=a=b.yaml":     {"kcm", "a=b.yaml"},
		"a=b.yaml":         {"", "a=b.yaml"},
		"dir/kcm=b.yaml":   {"", "dir/kcm=b.yaml"},
		"KCM=b.yaml":       {"", "KCM=b.yaml"},
		"kcm.yaml":         {"", "kcm.yaml"},
		"kcm=":             {"kcm", ""},
		"./kcm=x.yaml":     {"", "./kcm=x.yaml"},
		"scheduler=x.yaml": {"", "scheduler=x.yaml"},
	} {
		if side, path := migrate.CutSide(arg); side != want[0] || path != want[1] {
			t.Errorf("CutSide(%q) = %q, %q; want %q, %q", arg, side, path, want[0], want[1])
		}
	}
	// A file whose name holds "=" is read whole after its side.
	dir := t.TempDir()
	p := filepath.Join(dir, "a=b.yaml")
	if err := os.WriteFile(p, []byte("kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1alpha1\nleaderName: x\nresourceLock: leases\ncontrollerLeaders: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := migrate.DefaultSpec(migrate.TaskDoc)
	if err := s.SetUserConfigs([]string{"kcm=" + p}); err != nil || s.KCMConfig == nil || s.KCMConfig.Path != p {
		t.Fatalf("kcm=%s: %v, %+v", p, err, s.KCMConfig)
	}
}

// A flag's side arguments: FILE alone is both sides only where the flag
// allows it, a side is given once, and a bad form says how to write it.
func TestCutSides(t *testing.T) {
	for _, tc := range []struct {
		args []string
		both bool
		want map[string]string
		err  string
	}{
		{[]string{"kcm=a", "ccm=b"}, false, map[string]string{"kcm": "a", "ccm": "b"}, ""},
		{[]string{"a.conf"}, true, map[string]string{"kcm": "a.conf", "ccm": "a.conf"}, ""},
		{[]string{"a.conf"}, false, nil, "write kcm=FILE or ccm=FILE"},
		{[]string{"kcm=a", "b.conf"}, true, nil, "kcm= is given twice"},
		{[]string{"kcm="}, true, nil, "write kcm=FILE, ccm=FILE or FILE (both)"},
		{[]string{"KCM=a"}, false, nil, "only kcm= and ccm= name a side"},
	} {
		got, err := migrate.CutSides("--f", tc.args, tc.both)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v both=%v: %v, want an error with %q", tc.args, tc.both, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v both=%v: %v, %v; want %v", tc.args, tc.both, got, err, tc.want)
		}
	}
}
