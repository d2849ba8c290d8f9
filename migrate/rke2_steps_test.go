package migrate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// rke2Spec is the RKE2 runbook at one version (--to is --from): its switch
// reconfigures each node where it stands. raise_steps_test.go has the
// switch that raises the version.
func rke2Spec(flavour string) migrate.Spec {
	s := migrate.DefaultSpec(migrate.RKE2)
	s.ControlPlanes, s.Flavour, s.To = 2, flavour, s.From
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
	joined := len(f.kind.Added())
	f.do(t, sw)
	if len(f.kind.Added()) != joined {
		t.Errorf("the switch at one version joined %d nodes", len(f.kind.Added())-joined)
	}
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

// A user's own chart, rendered: its DaemonSet runs under its own name and
// service account, which is granted the leases, with the simulated
// cloud's manager swapped in; the plan lists what changed.
func TestRKE2WithTheUsersManifest(t *testing.T) {
	s := rke2Spec("aws")
	m, err := migrate.ReadCCMManifest("../examples/rke2-own-chart/ccm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.CCMManifest, s.CCMArgs = m, []string{"--concurrent-service-syncs=2"}
	f := newFakeEnv(t, s)
	ctx := context.Background()
	f.walk(t, "grant-migration-lease", "write-initial-config", "enable-leader-migration", "cordon-control-planes", "deploy-ccm")
	ds, err := f.kind.Client.AppsV1().DaemonSets("kube-system").Get(ctx, "aws-cloud-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the user's DaemonSet: %v", err)
	}
	pod := ds.Spec.Template.Spec
	c := pod.Containers[0]
	cmd := strings.Join(c.Command, " ")
	for _, want := range []string{"/usr/local/bin/cloud-controller-manager ", "--v=2", "--cloud-provider=kind", "--enable-leader-migration", "--leader-migration-config=/etc/leadermigration.conf", "--concurrent-service-syncs=2"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command lacks %s: %s", want, cmd)
		}
	}
	if strings.Contains(cmd, "aws") || c.Image != "handover.local/cloud-controller-manager:v1.30.14" || !pod.HostNetwork ||
		pod.ServiceAccountName != "aws-cloud-controller-manager" || pod.NodeSelector["node-role.kubernetes.io/control-plane"] != "" || len(pod.Tolerations) != 3 {
		t.Errorf("the DaemonSet as applied: %s %+v", c.Image, pod)
	}
	if ok, err := f.until(f.step(t, "deploy-ccm")); !ok || err != nil {
		t.Errorf("the user's service account may not take the migration lease: %v", err)
	}
	var plan strings.Builder
	p, err := migrate.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate.WritePlan(&plan, p, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Changed from your manifest, and why:", "--cloud-provider=kind (was aws)", "rollout status daemonset -n kube-system aws-cloud-controller-manager"} {
		if !strings.Contains(plan.String(), want) {
			t.Errorf("the plan does not say %q", want)
		}
	}
}

// The forms a procedure can run the cloud-controller-manager as; the
// rest is refused before anything runs.
func TestCCMForms(t *testing.T) {
	m, err := migrate.ReadCCMManifest("../examples/rke2-own-chart/ccm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(*migrate.Spec)
		want string
	}{
		{func(s *migrate.Spec) { s.CCMForm = "deployment"; s.CCMReplicas = 1 }, ""},
		{func(s *migrate.Spec) { s.CCMForm = "static-pod" }, "rke2 runs the cloud-controller-manager as daemonset or deployment"},
		{func(s *migrate.Spec) { s.CCMReplicas = 2 }, "replicas are a Deployment's"},
		{func(s *migrate.Spec) { s.CCMManifest, s.CCMForm = m, "deployment" }, "contradict"},
		{func(s *migrate.Spec) { s.Procedure, s.Flavour, s.CCMManifest = migrate.TaskDoc, "", m }, "taskdoc runs the cloud-controller-manager as static-pod, not from a manifest"},
	} {
		s := rke2Spec("aws")
		tc.edit(&s)
		_, err := migrate.Build(s)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", s, err, tc.want)
		}
	}
	for name, body := range map[string]string{
		"no workload":   "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: x\n",
		"two":           "apiVersion: apps/v1\nkind: DaemonSet\n---\napiVersion: apps/v1\nkind: Deployment\n",
		"unknown field": "apiVersion: apps/v1\nkind: DaemonSet\nspec:\n  templat: {}\n",
	} {
		p := filepath.Join(t.TempDir(), "m.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := migrate.ReadCCMManifest(p); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
}

// A Deployment chart (the Azure shape): probes on the secure port follow
// the manager onto the loopback, replicas spread one per node, a flag and
// its value given as two items are one flag, and the chart's own leader
// migration flags give way to the procedure's.
func TestUsersDeploymentManifest(t *testing.T) {
	body := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cloud-controller-manager
  namespace: kube-system
spec:
  replicas: 2
  selector:
    matchLabels: {app: ccm}
  template:
    metadata:
      labels: {app: ccm}
    spec:
      serviceAccountName: cloud-controller-manager
      containers:
      - name: cloud-controller-manager
        image: mcr.microsoft.com/oss/kubernetes/azure-cloud-controller-manager:v1.30.4
        command: [cloud-controller-manager]
        args: ["--v", "2", "--cloud-provider=azure", "--enable-leader-migration", "--leader-migration-config=/etc/theirs.conf", "--route-reconciliation-period=10s"]
        livenessProbe:
          httpGet: {path: /healthz, port: 10258, scheme: HTTPS}
`
	p := filepath.Join(t.TempDir(), "ccm.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := migrate.ReadCCMManifest(p)
	if err != nil {
		t.Fatal(err)
	}
	s := rke2Spec("azure")
	s.CCMManifest, s.KCMConfig = m, nil
	if err := s.SetUserConfigs([]string{"ccm=" + migrate.BuiltInDefault}); err != nil {
		t.Fatal(err)
	}
	f := newFakeEnv(t, s)
	f.walk(t, "grant-migration-lease", "write-initial-config", "enable-leader-migration", "cordon-control-planes", "deploy-ccm")
	d, err := f.kind.Client.AppsV1().Deployments("kube-system").Get(context.Background(), "cloud-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	cmd := strings.Join(pod.Containers[0].Command, " ")
	if !strings.Contains(cmd, " --v=2 ") || strings.Contains(cmd, "theirs.conf") || strings.Count(cmd, "--enable-leader-migration") != 1 ||
		!strings.Contains(cmd, "--route-reconciliation-period=10s") || strings.Contains(cmd, "azure") {
		t.Errorf("command: %s", cmd)
	}
	if *d.Spec.Replicas != 2 || pod.Containers[0].LivenessProbe.HTTPGet.Host != "127.0.0.1" ||
		pod.Affinity == nil || pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("deployment: replicas %d, pod %+v", *d.Spec.Replicas, pod)
	}
}

// --ccm-last puts the switch before the deploy in both Rancher runbooks,
// and says why in the deploy step's plan.
func TestCCMLastSwitchesFirst(t *testing.T) {
	for _, proc := range []string{migrate.RKE2, migrate.RKE} {
		s := migrate.DefaultSpec(proc)
		s.Variant.CCMLast = true
		p, err := migrate.Build(s)
		if err != nil {
			t.Fatalf("%s: %v", proc, err)
		}
		at := map[string]int{}
		for i, st := range p.Steps {
			at[st.Name] = i
		}
		if at["switch-to-external"] > at["deploy-ccm"] || at["deploy-ccm"] == 0 {
			t.Errorf("%s: switch at %d, deploy at %d", proc, at["switch-to-external"], at["deploy-ccm"])
		}
		note := p.Steps[at["deploy-ccm"]].Plan
		if !strings.Contains(note[len(note)-1].Body, "--ccm-last") {
			t.Errorf("%s: the deploy step does not say why it comes last", proc)
		}
	}
	s := migrate.DefaultSpec(migrate.TaskDoc)
	s.Variant.CCMLast = true
	if _, err := migrate.Build(s); err == nil || !strings.Contains(err.Error(), "--ccm-last applies to the rke2 and rke procedures only") {
		t.Errorf("taskdoc --ccm-last: %v", err)
	}
}

// The Rancher runbooks rely on the built-in default configuration: a plan
// follows them as written (no file) exactly where the lint, given the
// built-in default on both managers, finds no error; elsewhere it writes
// a file the lint finds nothing wrong with.
func TestRancherFollowsTheDefaultWhereTheLintFindsItSafe(t *testing.T) {
	for _, from := range nodeimage.Known() {
		for _, to := range nodeimage.Known() {
			if !nodeimage.PairOK(from, to) {
				continue
			}
			for _, procedure := range []string{migrate.RKE2, migrate.RKE} {
				s := migrate.DefaultSpec(procedure)
				s.From, s.To = from, to
				asWritten := s
				err := asWritten.SetUserConfigs([]string{"kcm=default", "ccm=default"})
				if err != nil {
					t.Fatal(err)
				}
				if asWritten, err = migrate.Complete(asWritten); err != nil {
					t.Fatal(err)
				}
				safe := asWritten.Lint().Errors() == 0
				p, err := migrate.Build(s)
				if err != nil {
					t.Fatal(err)
				}
				s = p.Spec
				if s.BuiltInConfig() != safe || (p.Index("write-initial-config") < 0) != safe {
					t.Errorf("%s %s -> %s: follows the built-in default %t, the lint finds it safe %t", procedure, from, to, s.BuiltInConfig(), safe)
				}
				if n := s.Lint().Errors(); n > 0 {
					t.Errorf("%s %s -> %s: %d lint errors in the plan:\n%s", procedure, from, to, n, s.Lint())
				}
			}
		}
	}
}

// The chart without its cloud-node-manager (a deliberate mistake): azure's
// chart is the manager alone, and the plan says so.
func TestChartWithoutNodeManager(t *testing.T) {
	chart := func(mistake string) string {
		s := rke2Spec("azure")
		s.From, s.To, s.Mistake = "v1.29.15", "v1.30.14", mistake
		if err := s.SetCloudProfile("azure"); err != nil {
			t.Fatal(err)
		}
		p, err := migrate.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, st := range p.Steps {
			if st.Name == "deploy-ccm" {
				for _, it := range st.Plan {
					b.WriteString(it.Body + "\n")
				}
			}
		}
		return b.String()
	}
	with, without := chart(""), chart(migrate.MistakeNoNodeManager)
	if !strings.Contains(with, "name: cloud-node-manager\n") || strings.Contains(without, "name: cloud-node-manager\n") ||
		!strings.Contains(without, "kind: Deployment") || !strings.Contains(without, "DELIBERATE MISTAKE") {
		t.Errorf("the chart with its node manager:\n%s\nwithout:\n%s", with, without)
	}
}
