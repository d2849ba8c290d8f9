package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLIOut(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd, g := newRoot()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := execute(context.Background(), cmd, g)
	return out.String(), err
}

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLintCommand(t *testing.T) {
	good := writeTemp(t, "ccm.yaml", "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1alpha1\nleaderName: cloud-provider-extraction-migration\nresourceLock: leases\ncontrollerLeaders:\n- name: service-lb-controller\n  component: '*'\n- name: node-route-controller\n  component: '*'\n- name: cloud-node-lifecycle-controller\n  component: '*'\n")
	taskDoc := writeTemp(t, "taskdoc.yaml", "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1alpha1\nleaderName: cloud-provider-extraction-migration\nresourceLock: leases\ncontrollerLeaders:\n- name: route\n  component: kube-controller-manager\n")
	malformed := writeTemp(t, "bad.yaml", "kind: LeaderMigrationConfiguration\ncontrollerLeaders: [\n")
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr bool
		says    string
	}{
		{"clean wildcard config", []string{"lint", "--leader-migration-config", good}, false, "ok: 1 file(s)"},
		{"task doc alias", []string{"lint", "--leader-migration-config", "kcm=" + taskDoc}, true, "use name: node-route-controller"},
		{"malformed yaml", []string{"lint", "--leader-migration-config", malformed}, true, "not a valid LeaderMigrationConfiguration"},
		{"bad prefix", []string{"lint", "--leader-migration-config", "scheduler=" + good}, true, "only kcm= and ccm= name a side"},
		{"no file", []string{"lint"}, true, "--leader-migration-config is required"},
		{"azure's manager", []string{"lint", "--leader-migration-config", good, "--provider", "azure"}, true, "runs in two managers at once: service-lb-controller, node-route-controller, cloud-node-lifecycle-controller"},
		{"azure's manager after the switch", []string{"lint", "--leader-migration-config", good, "--provider", "azure", "--ccm-after-switch"}, false, "every migrated controller runs in one manager at a time"},
		{"simulated at 1.32", []string{"lint", "--leader-migration-config", good, "--provider", "simulated", "--to", "v1.32.6"}, false, "ok: 1 file(s)"},
		{"unknown provider", []string{"lint", "--leader-migration-config", good, "--provider", "gce"}, true, `no provider profile "gce"`},
		{"matrix shards", []string{"matrix", "--list", "--json"}, false, `"130-131"`},
		{"matrix shard versions", []string{"matrix", "--versions", "129-130"}, false, "v1.29.15 v1.30.14"},
		{"matrix unknown shard", []string{"matrix", "--versions", "1-2"}, true, `no matrix shard "1-2"`},
		{"matrix without a question", []string{"matrix"}, true, "--list or --versions"},
		{"merge of nothing readable", []string{"report", "merge", "/nonexistent/verdicts.md"}, true, "/nonexistent/verdicts.md"},
		{"plan for azure's manager", []string{"plan", "--procedure", "rke2", "--flavour", "azure", "--provider", "azure-imitation"}, false, "reads --enable-leader-migration and --leader-migration-config and then uses neither"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runCLIOut(t, tc.args...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, output:\n%s", err, out)
			}
			if !strings.Contains(out+errString(err), tc.says) {
				t.Fatalf("want %q in:\n%s%v", tc.says, out, err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestPlanAndMigrateRejectBadInputBeforeTouchingACluster(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"plan", "--procedure", "kops"}, "unknown procedure"},
		{[]string{"plan", "--in-place", "--rollback"}, "contradict"},
		{[]string{"plan", "--procedure", "rke2", "--flavour", "gce"}, "supports aws, azure"},
		{[]string{"migrate", "--procedure", "default-config", "--name", "no-such-cluster"}, "preflight lint found"},
		{[]string{"migrate", "--from", "v1.31.4", "--name", "no-such-cluster"}, "no in-tree cloud provider"},
	} {
		if _, err := runCLIOut(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v: want an error saying %q, got %v", tc.args, tc.says, err)
		}
	}
	out, err := runCLIOut(t, "plan", "--procedure", "rke", "--flavour", "external-aws")
	if err != nil || !strings.Contains(out, "useInstanceMetadataHostname: true") || !strings.Contains(out, "## preflight lint") {
		t.Fatalf("plan rke: %v\n%s", err, out)
	}
}

// A plan the lint finds errors in is printed in full, and exits non-zero
// as migrate and rehearse would stop on it.
func TestPlanExitsNonZeroOnLintErrors(t *testing.T) {
	out, err := runCLIOut(t, "plan", "--procedure", "default-config")
	if err == nil || !strings.Contains(err.Error(), "preflight lint found") {
		t.Fatalf("plan with lint errors: %v", err)
	}
	if !strings.Contains(out, "## preflight lint") || !strings.Contains(out, "## what the lint predicts") {
		t.Fatalf("the plan was not printed in full:\n%s", out)
	}
	if _, err := runCLIOut(t, "plan", "--procedure", "taskdoc"); err != nil {
		t.Fatalf("a clean plan: %v", err)
	}
}

// --rollback --disable rolls back a migration that removed leader
// migration: the task doc's re-enable comes first.
func TestPlanRollbackAfterDisable(t *testing.T) {
	out, err := runCLIOut(t, "plan", "--rollback", "--disable")
	if err != nil {
		t.Fatalf("plan --rollback --disable: %v", err)
	}
	reenable, restore := strings.Index(out, "## 2. re-enable-leader-migration"), strings.Index(out, "## 3. restore-n-cluster-configuration")
	if reenable < 0 || restore < reenable {
		t.Fatalf("leader migration not re-enabled before the rollback:\n%s", out)
	}
}

// On 1.26 the built-in default names what the managers run: the plan of
// the procedure that uses it says so, and the lint finds nothing.
func TestPlanDefaultConfigOn126(t *testing.T) {
	out, err := runCLIOut(t, "plan", "--procedure", "default-config", "--from", "v1.26.13", "--to", "v1.27.4")
	if err != nil || !strings.Contains(out, "## preflight lint\n\nno findings") || strings.Contains(out, "flags the built-in default") {
		t.Fatalf("plan default-config on 1.26: %v\n%s", err, out)
	}
}

// The user's cloud-configs: read as each side's provider code reads them
// before anything is made, refused where no provider code reads them, and
// printed in the plan with what a rehearsal runs with.
func TestCloudConfigInput(t *testing.T) {
	shared := writeTemp(t, "cloud.conf", "[Global]\nKubernetesClusterID = prod\nDisableStrictZoneCheck = true\nVPC = vpc-1\n")
	ccm := writeTemp(t, "ccm.conf", "[Global]\nKubernetesClusterID = staging\n")
	aws := []string{"plan", "--provider", "aws", "--from", "v1.26.13", "--to", "v1.27.4"}
	for _, tc := range []struct {
		args    []string
		wantErr bool
		says    string
	}{
		{[]string{"plan", "--cloud-config", shared}, true, "give --provider aws"},
		{append(aws, "--cloud-config", shared), true, `k8s.io/cloud-provider-aws@v1.27.2 refuses it, and the cloud-controller-manager does not start: warning: can't store data at section "Global", variable "DisableStrictZoneCheck"`},
		{append(aws, "--cloud-config", "kcm="+shared, "--cloud-config", "ccm="+ccm), false, "a rehearsal runs with: DisableStrictZoneCheck = true; KubernetesClusterID = prod"},
		{append(aws, "--cloud-config", "kcm="+shared, "--cloud-config", "ccm="+ccm), false, `warning: [Global] KubernetesClusterID, KubernetesClusterTag: ` + shared + ` names cluster "prod", ` + ccm + ` names "staging"`},
		{append(aws, "--cloud-config", "kcm="+shared, "--cloud-config", "ccm="+ccm), false, "left out: VPC = vpc-1"},
		{append(aws, "--cloud-config", "kcm="+shared, "--cloud-config", shared), true, "given twice"},
		{append(aws, "--cloud-config", "ccm="+filepath.Join(t.TempDir(), "none.conf")), true, "no such file"},
		{[]string{"migrate", "--provider", "aws", "--from", "v1.26.13", "--to", "v1.27.4", "--cloud-config", shared}, true, "unknown flag: --cloud-config"},
		{append(aws, "--cloud-config", "KCM="+shared), true, "only kcm= and ccm= name a side"},
		{[]string{"rehearse", "--config", "../../examples/aws-cloud-configs/rehearsal.yaml", "--cloud-config", "kcm=" + shared}, true, "--config ../../examples/aws-cloud-configs/rehearsal.yaml and --cloud-config contradict"},
		{[]string{"rehearse", "--leader-migration-config", "kcm=a.yaml", "--leader-migration-config", "kcm=b.yaml", "--out", t.TempDir()}, true, "kcm= is given twice"},
	} {
		out, err := runCLIOut(t, tc.args...)
		if (err != nil) != tc.wantErr || !strings.Contains(out+errString(err), tc.says) {
			t.Errorf("%v: err %v, want %q in:\n%s", tc.args[len(tc.args)-2:], err, tc.says, out)
		}
	}
}
