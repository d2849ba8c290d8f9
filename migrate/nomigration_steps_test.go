package migrate_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/procedures/controllersflag"
)

func stepNames(p *migrate.Procedure) []string {
	var out []string
	for _, st := range p.Steps {
		out = append(out, st.Name)
	}
	return out
}

// Stop, then start: every kube-controller-manager loses its provider
// before the chart goes in, and nothing of leader migration is applied.
func TestStopStartSteps(t *testing.T) {
	s := migrate.DefaultSpec(migrate.StopStart)
	s.ControlPlanes = 2
	f := newFakeEnv(t, s)
	ctx := context.Background()
	if got, want := stepNames(f.proc), []string{"switch-to-external", "deploy-ccm", "rollout-status", "verify-controllers-in-ccm"}; !slices.Equal(got, want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
	f.walk(t, "switch-to-external")
	for _, cp := range f.cps {
		if m := f.file(t, cp, kcmManifest); strings.Contains(m, "--cloud-provider") {
			t.Errorf("%s still in-tree:\n%s", cp, m)
		}
	}
	deploy := f.step(t, "deploy-ccm")
	if deploy.Pre != nil {
		t.Error("deploy-ccm waits for a migration-lease grant no step makes")
	}
	f.walk(t, "deploy-ccm")
	applied := strings.Join(f.kind.Applied(), "\n")
	if strings.Contains(applied, "leader-migration") {
		t.Errorf("the chart carries leader migration:\n%s", applied)
	}
	if _, err := f.kind.Client.AppsV1().DaemonSets("kube-system").Get(ctx, "cloud-controller-manager", metav1.GetOptions{}); err != nil {
		t.Fatalf("the aws chart's DaemonSet: %v", err)
	}
}

// KubeOne's way: --controllers keeps the cloud loops out of every
// kube-controller-manager while the in-tree provider stays on; the CCM
// goes in without leader migration; only then do the nodes switch.
func TestControllersFlagSteps(t *testing.T) {
	s := migrate.DefaultSpec(migrate.ControllersFlag)
	s.ControlPlanes = 2
	f := newFakeEnv(t, s)
	ctx := context.Background()
	if got, want := stepNames(f.proc), []string{"exclude-cloud-controllers", "deploy-ccm", "rollout-status", "switch-to-external", "verify-controllers-in-ccm"}; !slices.Equal(got, want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
	ex := f.step(t, "exclude-cloud-controllers")
	if f.done(t, ex) {
		t.Fatal("exclude-cloud-controllers done before it ran")
	}
	f.do(t, ex)
	for _, cp := range f.cps {
		m := f.file(t, cp, kcmManifest)
		if !strings.Contains(m, "--controllers="+controllersflag.Exclusion) || !strings.Contains(m, "--cloud-provider=") {
			t.Errorf("%s: want the in-tree provider with --controllers=%s:\n%s", cp, controllersflag.Exclusion, m)
		}
		if strings.Contains(m, "leader-migration") {
			t.Errorf("%s: leader migration in a procedure without it:\n%s", cp, m)
		}
	}
	f.walk(t, "deploy-ccm")
	if _, err := f.kind.Client.AppsV1().Deployments("kube-system").Get(ctx, "cloud-controller-manager", metav1.GetOptions{}); err != nil {
		t.Fatalf("the Deployment: %v", err)
	}
	if applied := strings.Join(f.kind.Applied(), "\n"); strings.Contains(applied, "leader-migration") {
		t.Errorf("the CCM carries leader migration:\n%s", applied)
	}
	f.walk(t, "switch-to-external")
	for _, cp := range f.cps {
		if m := f.file(t, cp, kcmManifest); strings.Contains(m, "--cloud-provider") {
			t.Errorf("%s still in-tree:\n%s", cp, m)
		}
	}
}
