package migrate_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

func rke2Spec(flavour string) migrate.Spec {
	s := migrate.DefaultSpec(migrate.RKE2)
	s.ControlPlanes, s.Flavour = 2, flavour
	return s
}

// The RKE2 runbook's steps on a fake cluster, in order.
func TestRKE2Steps(t *testing.T) {
	f := newFakeEnv(t, rke2Spec(""))
	ctx := context.Background()
	if f.Spec.Flavour != "aws" {
		t.Fatalf("default flavour %q, want aws", f.Spec.Flavour)
	}

	deploy := f.step(t, "deploy-ccm")
	if err := deploy.Pre(ctx, f.Env); err == nil || !strings.Contains(err.Error(), "grant-migration-lease") {
		t.Fatalf("deploy-ccm before the grant: %v", err)
	}
	f.walk(t, "grant-migration-lease", "write-initial-config")
	if c := f.file(t, f.cps[0], lmConfig); !strings.Contains(c, `component: "*"`) {
		t.Errorf("the runbook's configuration gives the controllers to '*':\n%s", c)
	}
	f.do(t, f.step(t, "enable-leader-migration"))

	cordon := f.step(t, "cordon-control-planes")
	if f.done(t, cordon) {
		t.Fatal("cordoned before the step")
	}
	f.do(t, cordon)
	for _, cp := range f.cps {
		if !f.node(t, cp).Spec.Unschedulable {
			t.Errorf("%s not cordoned", cp)
		}
	}
	if !f.done(t, cordon) {
		t.Fatal("cordon not done after it ran")
	}

	// Installing the chart replaces the leader-locking Role and with it the
	// migration-lease rule: the step grants it again.
	if f.done(t, deploy) {
		t.Fatal("deploy-ccm done before it ran")
	}
	f.do(t, deploy)
	if _, err := f.kind.Client.AppsV1().DaemonSets("kube-system").Get(ctx, "cloud-controller-manager", metav1.GetOptions{}); err != nil {
		t.Fatalf("the aws chart's DaemonSet: %v", err)
	}
	if applied := f.kind.Applied(); !strings.Contains(applied[len(applied)-1], cloudcluster.CCMLeaderLockingRole) {
		t.Fatal("the chart does not carry the leader-locking Role: the re-grant is not exercised")
	}
	if !f.done(t, deploy) {
		t.Fatal("deploy-ccm not done after it ran")
	}
	if ok, err := f.until(deploy); !ok {
		t.Errorf("the chart dropped the migration-lease grant: %v", err)
	}

	// Every kube-controller-manager loses its cloud provider and leader
	// migration, every kubelet is restarted external.
	sw := f.step(t, "switch-to-external")
	if f.done(t, sw) {
		t.Fatal("switch-to-external done before it ran")
	}
	f.do(t, sw)
	for _, cp := range f.cps {
		if m := f.file(t, cp, kcmManifest); strings.Contains(m, "--cloud-provider") || strings.Contains(m, "leader-migration") {
			t.Errorf("%s still in-tree:\n%s", cp, m)
		}
	}
	nodes, _ := f.kind.Nodes()
	for _, n := range nodes {
		if fl := f.file(t, n.String(), "/var/lib/kubelet/kubeadm-flags.env"); !strings.Contains(fl, "--cloud-provider=external") {
			t.Errorf("%s kubelet: %s", n, fl)
		}
	}
	if restarts := strings.Count(strings.Join(f.kind.Execs(), "\n"), "systemctl restart kubelet"); restarts != len(nodes) {
		t.Errorf("%d kubelet restarts for %d nodes", restarts, len(nodes))
	}
	if !f.done(t, sw) {
		t.Fatal("switch-to-external not done after it ran")
	}

	uncordon := f.step(t, "uncordon-control-planes")
	if f.done(t, uncordon) {
		t.Fatal("uncordoned before the step")
	}
	f.do(t, uncordon)
	if !f.done(t, uncordon) {
		t.Fatal("uncordon not done after it ran")
	}

	rollout := f.step(t, "rollout-status")
	if f.done(t, rollout) {
		t.Fatal("rolled out with no pod scheduled")
	}
	ds, err := f.kind.Client.AppsV1().DaemonSets("kube-system").Get(ctx, "cloud-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 2, UpdatedNumberScheduled: 2, NumberAvailable: 1, ObservedGeneration: ds.Generation}
	updateDS(t, f, ds)
	if f.done(t, rollout) {
		t.Fatal("rolled out with one of two available")
	}
	ds.Status.NumberAvailable = 2
	updateDS(t, f, ds)
	if !f.done(t, rollout) {
		t.Fatal("not rolled out with every pod available")
	}
}

// A switch that meets a terminated worker goes on: it has no kubelet left.
func TestRKE2SwitchSkipsTerminatedWorker(t *testing.T) {
	f := newFakeEnv(t, rke2Spec("aws"))
	nodes, _ := f.kind.Nodes()
	var worker string
	for _, n := range nodes {
		if r, _ := n.Role(); r == "worker" {
			worker = n.String()
		}
	}
	f.kind.Stop(worker)
	if err := f.kind.RemoveFile(context.Background(), worker, "/var/lib/kubelet/kubeadm-flags.env"); err != nil {
		t.Fatal(err)
	}
	sw := f.step(t, "switch-to-external")
	f.do(t, sw)
	if !f.done(t, sw) {
		t.Error("switch not done with a terminated worker")
	}
}

// Azure's chart is a Deployment.
func TestRKE2AzureDeploysDeployment(t *testing.T) {
	f := newFakeEnv(t, rke2Spec("azure"))
	f.do(t, f.step(t, "grant-migration-lease"))
	f.do(t, f.step(t, "deploy-ccm"))
	if _, err := f.kind.Client.AppsV1().Deployments("kube-system").Get(context.Background(), "cloud-controller-manager", metav1.GetOptions{}); err != nil {
		t.Fatalf("the azure chart's Deployment: %v", err)
	}
	if !f.done(t, f.step(t, "deploy-ccm")) {
		t.Error("deploy-ccm not done")
	}
}

func updateDS(t *testing.T, f *fakeEnv, ds *appsv1.DaemonSet) {
	t.Helper()
	if _, err := f.kind.Client.AppsV1().DaemonSets("kube-system").UpdateStatus(context.Background(), ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
