package migrate_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// raiseSpec is a Rancher runbook from v1.30.14 to v1.31.4: its switch
// raises the version.
func raiseSpec(procedure, flavour string) migrate.Spec {
	s := migrate.DefaultSpec(procedure)
	s.ControlPlanes, s.Flavour = 2, flavour
	return s
}

// walkToSwitch runs a Rancher runbook's steps up to its switch.
func walkToSwitch(t *testing.T, f *fakeEnv) {
	t.Helper()
	for _, st := range f.proc.Steps {
		if st.Name == "switch-to-external" {
			return
		}
		f.do(t, st)
	}
	t.Fatal("no switch-to-external")
}

// RKE2's switch with --to newer than --from: the chart runs N+1's manager
// (its image loaded into the version-N control planes first), and the
// switch replaces each control plane with an external version-N+1 one that
// registers cordoned, the lease holder's last; the worker keeps its
// version and switches its kubelet.
func TestRKE2SwitchRaisesTheVersion(t *testing.T) {
	f := newFakeEnv(t, raiseSpec(migrate.RKE2, "aws"))
	if !f.Spec.Raises() {
		t.Fatal("v1.30.14 to v1.31.4 does not raise the version")
	}
	ctx := context.Background()
	image := "handover.local/cloud-controller-manager:" + f.Spec.To

	f.walk(t, "grant-migration-lease", "write-initial-config", "enable-leader-migration", "cordon-control-planes", "load-n1-images")
	for _, cp := range f.cps {
		if refs, _ := f.kind.ImageRefs(ctx, cp); !refs[image] {
			t.Errorf("%s has no %s", cp, image)
		}
	}
	f.walk(t, "deploy-ccm")
	if applied := f.kind.Applied(); !strings.Contains(applied[len(applied)-1], "image: "+image) {
		t.Error("the chart does not run the N+1 manager")
	}

	f.holds(t, f.Spec.LeaderName, f.cps[0])
	joined := len(f.kind.Added())
	f.walk(t, "switch-to-external")
	if got := f.kind.Removed(); !slices.Equal(got, []string{f.cps[1], f.cps[0]}) {
		t.Errorf("removed %v, want the migration lease's holder last: %v", got, []string{f.cps[1], f.cps[0]})
	}
	added := f.kind.Added()[joined:]
	if len(added) != f.Spec.ControlPlanes {
		t.Fatalf("%d control planes joined, want %d", len(added), f.Spec.ControlPlanes)
	}
	for _, o := range added {
		k := o.KubeletArgs
		if o.Role != kindcluster.RoleControlPlane || o.Kubernetes != f.Spec.To || !o.LocalAPIServer || k["cloud-provider"] != "external" ||
			k["image-credential-provider-config"] == "" || k["image-credential-provider-bin-dir"] == "" || k["register-schedulable"] != "false" {
			t.Errorf("joined %+v", o)
		}
		if _, ok := o.Files[cloudcluster.CCMStaticPodPath]; ok {
			t.Error("a chart's control plane joined with a static-pod manager")
		}
	}
	cps, _ := f.kind.ControlPlanes()
	for _, cp := range cps {
		if m := f.file(t, cp.String(), kcmManifest); strings.Contains(m, "--cloud-provider") || strings.Contains(m, "leader-migration") || !strings.Contains(m, ":"+f.Spec.To) {
			t.Errorf("%s kube-controller-manager:\n%s", cp, m)
		}
		if !f.node(t, cp.String()).Spec.Unschedulable {
			t.Errorf("%s joined schedulable: the runbook's cordon holds until uncordon-control-planes", cp)
		}
	}
	worker := f.worker(t)
	if fl := f.file(t, worker, "/var/lib/kubelet/kubeadm-flags.env"); !strings.Contains(fl, "--cloud-provider=external") {
		t.Errorf("worker kubelet: %s", fl)
	}

	// A re-run finds the switch done and joins nothing.
	f.do(t, f.step(t, "switch-to-external"))
	if n := len(f.kind.Added()) - joined; n != f.Spec.ControlPlanes {
		t.Errorf("a re-run joined %d more", n-f.Spec.ControlPlanes)
	}

	f.walk(t, "uncordon-control-planes")
	for _, cp := range cps {
		if f.node(t, cp.String()).Spec.Unschedulable {
			t.Errorf("%s still cordoned", cp)
		}
	}
}

// RKE's `rke up` uncordons each node it upgrades: a joining control plane
// registers schedulable. Without useInstanceMetadataHostname (the mistake)
// it registers under its hostname, as a switched kubelet does.
func TestRKESwitchRaisesTheVersion(t *testing.T) {
	for _, mistake := range []string{"", migrate.MistakeRKENoMetaHostname} {
		s := raiseSpec(migrate.RKE, "external-aws")
		s.Mistake = mistake
		f := newFakeEnv(t, s)
		walkToSwitch(t, f)
		joined := len(f.kind.Added())
		f.walk(t, "switch-to-external")
		for _, o := range f.kind.Added()[joined:] {
			if _, ok := o.KubeletArgs["register-schedulable"]; ok || o.Kubernetes != f.Spec.To || o.ByHostname != (mistake != "") {
				t.Errorf("mistake %q: joined %+v", mistake, o)
			}
		}
		cps, _ := f.kind.ControlPlanes()
		for _, cp := range cps {
			if f.node(t, cp.String()).Spec.Unschedulable {
				t.Errorf("mistake %q: %s joined cordoned", mistake, cp)
			}
		}
	}
}

// --ccm-last switches first: every control plane is N+1 by the deploy, so
// no image is loaded into version-N ones.
func TestCCMLastRaisesWithoutLoading(t *testing.T) {
	s := raiseSpec(migrate.RKE2, "aws")
	s.Variant.CCMLast = true
	p, err := migrate.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Index("load-n1-images") >= 0 {
		t.Error("--ccm-last loads the N+1 manager's image into nodes it replaces first")
	}
}

// The plans say the version is raised at the switch, in the runbook's own
// configuration, and with the flags a joining kubelet gets; at one version
// they say none of it.
func TestRaisePlans(t *testing.T) {
	for _, tc := range []struct {
		procedure, flavour string
		to                 func(migrate.Spec) string
		must, not          []string
	}{
		{migrate.RKE2, "azure", func(s migrate.Spec) string { return s.To },
			[]string{"load-n1-images", "  kubernetesVersion: v1.31.4   #", "cloud-provider-name: external", "--image-credential-provider-config=", "--register-schedulable=false", "image: handover.local/cloud-controller-manager:v1.31.4"}, nil},
		{migrate.RKE, "external", func(s migrate.Spec) string { return s.To },
			[]string{"kubernetes_version: v1.31.4   #", "name: external\n", "--image-credential-provider-bin-dir=", "registers schedulable"}, []string{"--register-schedulable"}},
		{migrate.RKE2, "aws", func(s migrate.Spec) string { return s.From }, nil,
			[]string{"load-n1-images", "kubernetesVersion", "image-credential-provider", "register-schedulable", "v1.31.4"}},
		{migrate.RKE, "external-aws", func(s migrate.Spec) string { return s.From }, nil,
			[]string{"load-n1-images", "kubernetes_version", "image-credential-provider", "register-schedulable", "v1.31.4"}},
	} {
		s := raiseSpec(tc.procedure, tc.flavour)
		s.To = tc.to(s)
		p, err := migrate.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := migrate.WritePlan(&b, p, s); err != nil {
			t.Fatal(err)
		}
		for _, m := range tc.must {
			if !strings.Contains(b.String(), m) {
				t.Errorf("%s %s -> %s: plan lacks %q", tc.procedure, s.From, s.To, m)
			}
		}
		for _, m := range tc.not {
			if strings.Contains(b.String(), m) {
				t.Errorf("%s %s -> %s: plan has %q", tc.procedure, s.From, s.To, m)
			}
		}
	}
}

// worker is the fake cluster's worker.
func (f *fakeEnv) worker(t *testing.T) string {
	t.Helper()
	nodes, _ := f.kind.Nodes()
	for _, n := range nodes {
		if r, _ := n.Role(); r == kindcluster.RoleWorker {
			return n.String()
		}
	}
	t.Fatal("no worker")
	return ""
}
