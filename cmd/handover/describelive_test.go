package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/rehearsal/derived"
	"github.com/handover-sh/handover/rehearsal/live"
)

// The flags of a running cluster need --kubeconfig, and describe reads
// one cluster, running or Rancher's YAML: bad input, said in one line,
// before any kubeconfig is read.
func TestDescribeLiveRefusesBadInput(t *testing.T) {
	rancherFile := rancherTestdata + "rke2-aws-step5.yaml"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", t.TempDir()}, "--out needs --kubeconfig"},
		{[]string{"--context", "prod"}, "--context needs --kubeconfig"},
		{[]string{"--no-exec"}, "--no-exec needs --kubeconfig"},
		{[]string{"--rbac-subject", "user:ci"}, "--rbac-subject needs --print-rbac"},
		{[]string{"--kubeconfig", "/nonexistent/kubeconfig", "--rbac-subject", "user:ci"}, "--rbac-subject needs --print-rbac"},
		{[]string{"--print-rbac", "--kubeconfig", "/nonexistent/kubeconfig"}, "--print-rbac and --kubeconfig"},
		{[]string{"--out", t.TempDir(), "--rancher-cluster", rancherFile}, "--out needs --kubeconfig"},
		{[]string{"--kubeconfig", "/nonexistent/kubeconfig", "--rancher-cluster", rancherFile}, "--kubeconfig and a Rancher file"},
		{[]string{"--print-rbac", "--rke-cluster-yml", rancherFile}, "--kubeconfig and a Rancher file"},
		{[]string{"--print-rbac", "--rbac-subject", "robot"}, "--rbac-subject: subject \"robot\""},
		{[]string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, "kubeconfig"},
	} {
		err := runCLI(t, append([]string{"describe"}, c.args...)...)
		if exitcode.Of(err) != exitcode.BadInput || !strings.Contains(errString(err), c.want) || strings.Contains(errString(err), "\n") {
			t.Errorf("%v: exit %d, %v; want %d and one line with %q", c.args, exitcode.Of(err), err, exitcode.BadInput, c.want)
		}
	}
}

// --print-rbac prints the roles describe needs, handover-describer, and
// with --rbac-subject their bindings; nothing is read.
func TestDescribePrintsItsRoles(t *testing.T) {
	out, err := runCLIOut(t, "describe", "--print-rbac")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out != live.Roles().YAML() {
		t.Errorf("the output is not live.Roles():\n%s", out)
	}
	for _, want := range []string{"kind: ClusterRole\nmetadata:\n  name: handover-describer\n",
		"kind: Role\nmetadata:\n  name: handover-describer\n  namespace: kube-system\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Binding") {
		t.Errorf("bindings printed without a subject:\n%s", out)
	}
	out, err = runCLIOut(t, "describe", "--print-rbac", "--rbac-subject", "user:ci@example.com")
	if err != nil || !strings.Contains(out, "kind: ClusterRoleBinding\nmetadata:\n  name: handover-describer\n") ||
		!strings.Contains(out, "kind: RoleBinding\nmetadata:\n  name: handover-describer\n  namespace: kube-system\n") ||
		!strings.Contains(out, `name: "ci@example.com"`) {
		t.Errorf("--rbac-subject: %v\n%s", err, out)
	}
}

// A rehearsal naming files beside it needs --out, which gets the file and
// those beside it.
func TestDescribeLiveWritesTheFilesBesideIt(t *testing.T) {
	d := &live.Description{
		File: derived.File{Config: rehearsal.Config{Name: "lmx", Procedure: "taskdoc", From: "v1.29.15", To: "v1.29.15",
			ControlPlanes: 1, Workers: 1, LeaderMigration: map[string]string{"ccm": "leader-migration-ccm.yaml"}},
			From: map[string]string{"name": "kube-controller-manager's --cluster-name"}, Header: "A rehearsal derived by a test."},
		Beside: map[string]string{"leader-migration-ccm.yaml": "kind: LeaderMigrationConfiguration\n"},
	}
	var out bytes.Buffer
	err := (&liveFlags{}).write(&out, d)
	if exitcode.Of(err) != exitcode.BadInput || !strings.Contains(errString(err), "give --out DIR") || out.Len() > 0 {
		t.Errorf("without --out: exit %d, %v, printed %q; want bad input asking for --out and nothing printed", exitcode.Of(err), err, out.String())
	}
	dir := filepath.Join(t.TempDir(), "prod")
	if err := (&liveFlags{out: dir}).write(&out, d); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(filepath.Join(dir, "rehearsal.yaml"))
	if err != nil || string(written) != out.String() || !strings.Contains(out.String(), "\nleaderMigration:\n  ccm: leader-migration-ccm.yaml\n") {
		t.Errorf("rehearsal.yaml %v:\n%s\nprinted:\n%s", err, written, out.String())
	}
	if beside, err := os.ReadFile(filepath.Join(dir, "leader-migration-ccm.yaml")); err != nil || string(beside) != d.Beside["leader-migration-ccm.yaml"] {
		t.Errorf("leader-migration-ccm.yaml %v: %q", err, beside)
	}
}
