package live_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/rehearsal/live"
)

// awsRehearsal is the rehearsal of awsCluster, every field describe
// derives.
func awsRehearsal() rehearsal.Config {
	return rehearsal.Config{Name: "lmx", Procedure: "taskdoc", Provider: "aws", From: "v1.29.15", To: "v1.29.15",
		ControlPlanes: 1, Workers: 1, InPlace: true, LeaderMigration: map[string]string{"ccm": "leader-migration-ccm.yaml"},
		CCMArgs: []string{"--v=2", "--allocate-node-cidrs=true", "--configure-cloud-routes=true"},
		CCM:     rehearsal.CCMInput{Form: live.DaemonSet}}
}

// A kubeadm cluster of handover's AWS provider is described whole: every
// field derived, the CCM's leader-migration configuration beside the file,
// each field with where it came from, and the file reads back as rehearse
// --config reads it.
func TestDescribeAKubeadmClusterOnAWS(t *testing.T) {
	d := awsCluster().describe(t)
	want := awsRehearsal()
	if !reflect.DeepEqual(d.File.Config, want) {
		t.Errorf("config:\n got %+v\nwant %+v", d.File.Config, want)
	}
	if wantBeside := map[string]string{"leader-migration-ccm.yaml": lmConfig}; !reflect.DeepEqual(d.Beside, wantBeside) {
		t.Errorf("beside: got %q, want %q", d.Beside, wantBeside)
	}
	for _, key := range []string{"name", "procedure", "provider", "from", "to", "controlPlanes", "workers", "ccmArgs", "ccm", "leaderMigration.ccm"} {
		if d.File.From[key] == "" {
			t.Errorf("%s: no comment saying where it came from (%q)", key, d.File.From)
		}
	}
	if from := d.File.From["leaderMigration.ccm"]; !strings.Contains(from, "ConfigMap kube-system/"+lmConfigMap+" key leader-migration.yaml") {
		t.Errorf("leaderMigration.ccm comes from %q, want the ConfigMap's key named", from)
	}
	if from := d.File.From["procedure"]; !strings.Contains(from, "kubeadm") {
		t.Errorf("procedure comes from %q, want kubeadm's annotation named", from)
	}
	for _, fact := range []string{"1 control planes, 1 workers, in 1 zone(s)", "AWS private DNS names (e.g. " + controlPlane,
		"aws:// on 2 node(s)", "1 Service(s) of type LoadBalancer",
		"cloud-controller-manager: daemonset/aws-cloud-controller-manager, image " + ccmImage,
		"--cluster-cidr=10.244.0.0/16: the rehearsal's cluster has handover's own pod and service ranges",
		"--client-ca-file=/etc/kubernetes/pki/ca.crt: a file on the node"} {
		if !strings.Contains(d.File.Header, fact) {
			t.Errorf("the header does not say %q:\n%s", fact, d.File.Header)
		}
	}
	assertReadsBack(t, d, want)
}

// assertReadsBack: the file's YAML, read as rehearse --config reads it,
// is the defaults with the derived fields over them, the files beside it
// relative to it.
func assertReadsBack(t *testing.T, d *live.Description, derived rehearsal.Config) {
	t.Helper()
	raw, err := d.File.YAML()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	got, err := rehearsal.Parse(raw, filepath.Join(dir, "rehearsal.yaml"))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, raw)
	}
	want := rehearsal.Default()
	want.Name, want.Procedure, want.Provider, want.From, want.To = derived.Name, derived.Procedure, derived.Provider, derived.From, derived.To
	want.ControlPlanes, want.Workers, want.KCMArgs, want.CCMArgs, want.CCM = derived.ControlPlanes, derived.Workers, derived.KCMArgs, derived.CCMArgs, derived.CCM
	want.InPlace = derived.InPlace
	for side, p := range derived.LeaderMigration {
		if want.LeaderMigration == nil {
			want.LeaderMigration = map[string]string{}
		}
		if p != "default" {
			p = filepath.Join(dir, p)
		}
		want.LeaderMigration[side] = p
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n got %+v\nwant %+v\n%s", got, want, raw)
	}
}

// "--flag value", two arguments, is read as --flag=value: the cluster
// name, the cloud, the flags carried and the leader-migration file.
func TestDescribeReadsTwoTokenFlags(t *testing.T) {
	tc := awsCluster()
	tc.kcm.Spec.Containers[0].Command = slices.Concat(
		slices.DeleteFunc(slices.Clone(kcmCommand), func(a string) bool { return a == "--cluster-name=lmx" }),
		[]string{"--cluster-name", "lmx"})
	tc.ccm.Spec.Containers[0].Args = []string{"--bind-address", "127.0.0.1", "--v", "2", "--cloud-provider", "aws",
		"--cloud-config", "/etc/kubernetes/aws/cloud-ccm.conf", "--cluster-name", "lmx", "--allocate-node-cidrs=true",
		"--configure-cloud-routes", "true", "--cluster-cidr", "10.244.0.0/16", "--enable-leader-migration",
		"--leader-migration-config", lmPath}
	d := tc.describe(t)
	if want := awsRehearsal(); !reflect.DeepEqual(d.File.Config, want) {
		t.Errorf("config:\n got %+v\nwant %+v\n%s", d.File.Config, want, d.File.Header)
	}
	if d.Beside["leader-migration-ccm.yaml"] != lmConfig {
		t.Errorf("beside: %q, want the ConfigMap's configuration", d.Beside)
	}
}

// A CCM of a Deployment (pod, ReplicaSet, Deployment) runs in the
// deployment form with the Deployment's replicas.
func TestDescribeADeployedCCM(t *testing.T) {
	tc := awsCluster()
	tc.deployed(2)
	d := tc.describe(t)
	if want := (rehearsal.CCMInput{Form: live.Deployment, Replicas: 2}); d.File.Config.CCM != want {
		t.Errorf("ccm: %+v, want %+v", d.File.Config.CCM, want)
	}
	if from := d.File.From["ccm"]; !strings.Contains(from, "deployment/aws-cloud-controller-manager") {
		t.Errorf("ccm comes from %q, want the Deployment named", from)
	}
}

// A CCM whose cluster name is not the KCM's keeps it as a flag: given,
// or the managers' default (kubernetes) when it gives none. The
// rehearsal's name is the KCM's, its default when it gives none, and the
// header says when they differ.
func TestDescribeKeepsTheCCMsOwnClusterName(t *testing.T) {
	for _, c := range []struct {
		name       string
		kcm, ccm   string // --cluster-name, "" for none
		want, from string // the rehearsal's name, and whose
		kept       string // the CCM's flag kept, "" for none
		note       string
	}{
		{"another", "lmx", "lmx-ccm", "lmx", "kube-controller-manager", "--cluster-name=lmx-ccm",
			"--cluster-name=lmx-ccm differs from the kube-controller-manager's lmx"},
		{"none on the CCM", "lmx", "", "lmx", "kube-controller-manager", "--cluster-name=kubernetes",
			"runs with no --cluster-name, so with the default kubernetes, not the kube-controller-manager's lmx"},
		{"none on the KCM", "", "lmx", "kubernetes", "kube-controller-manager gives no --cluster-name", "--cluster-name=lmx",
			"--cluster-name=lmx differs from the kube-controller-manager's kubernetes"},
		{"none on either", "", "", "kubernetes", "its default", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := awsCluster()
			tc.kcm.Spec.Containers[0].Command = withClusterName(kcmCommand, c.kcm)
			tc.ccm.Spec.Containers[0].Args = withClusterName(ccmArgs, c.ccm)
			d := tc.describe(t)
			cfg := d.File.Config
			if cfg.Name != c.want || !strings.Contains(d.File.From["name"], c.from) {
				t.Errorf("name %q from %q, want %q from %q", cfg.Name, d.File.From["name"], c.want, c.from)
			}
			want := awsRehearsal().CCMArgs
			if c.kept != "" {
				want = append(want, c.kept)
			}
			if !slices.Equal(cfg.CCMArgs, want) {
				t.Errorf("ccmArgs %q, want %q", cfg.CCMArgs, want)
			}
			if c.note != "" && !strings.Contains(d.File.Header, c.note) {
				t.Errorf("the header does not say %q:\n%s", c.note, d.File.Header)
			}
			if c.note == "" && strings.Contains(d.File.Header, "--cluster-name") {
				t.Errorf("the header notes a cluster name:\n%s", d.File.Header)
			}
		})
	}
}

// withClusterName is args with --cluster-name=name instead of theirs, or
// none for "".
func withClusterName(args []string, name string) []string {
	out := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, "--cluster-name=") })
	if name != "" {
		out = append(out, "--cluster-name="+name)
	}
	return out
}

// Nodes kwok simulates are no machines: not counted, and said so.
func TestDescribeLeavesOutKwokNodes(t *testing.T) {
	tc := awsCluster()
	for _, name := range []string{"kwok-node-0", "kwok-node-1", "kwok-control-plane"} {
		n := node(name, "", strings.Contains(name, "control-plane"))
		n.Annotations["kwok.x-k8s.io/node"] = "fake"
		n.Labels["type"] = "kwok"
		tc.nodes = append(tc.nodes, n)
	}
	d := tc.describe(t)
	if c := d.File.Config; c.ControlPlanes != 1 || c.Workers != 1 {
		t.Errorf("%d control planes, %d workers; want 1 and 1", c.ControlPlanes, c.Workers)
	}
	for _, says := range []string{"3 nodes kwok simulates", "ProviderIDs: aws:// on 2 node(s)\n"} {
		if !strings.Contains(d.File.Header, says) {
			t.Errorf("the header does not say %q:\n%s", says, d.File.Header)
		}
	}
}

// A cluster without a kube-controller-manager pod has nothing to derive
// the procedure from: an error, though it reads.
func TestDescribeNeedsAKubeControllerManager(t *testing.T) {
	tc := awsCluster()
	tc.kcm = nil
	cl, err := live.Read(context.Background(), tc.client(), "lmx.kubeconfig")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if _, err := live.Describe(cl); err == nil || !strings.Contains(err.Error(), "no kube-controller-manager") {
		t.Errorf("Describe: %v, want an error saying there is no kube-controller-manager", err)
	}
}

// A cluster on handover's simulated provider (kind's cloud: the KCM's
// --cloud-provider=kind, kind:// ProviderIDs) is rehearsed on the
// default provider, no provider field, and the header says which.
func TestDescribeAClusterOnTheSimulatedProvider(t *testing.T) {
	tc := awsCluster()
	tc.nodes = []*corev1.Node{
		node("lmx-control-plane", "kind://docker/lmx/lmx-control-plane", true),
		node("lmx-worker", "kind://docker/lmx/lmx-worker", false),
	}
	tc.kcm.Spec.Containers[0].Command = append(slices.Clone(kcmCommand), "--cloud-provider=kind")
	tc.ccm = nil
	d := tc.describe(t)
	want := rehearsal.Config{Name: "lmx", Procedure: "taskdoc", From: "v1.29.15", To: "v1.29.15", ControlPlanes: 1, Workers: 1, InPlace: true}
	if !reflect.DeepEqual(d.File.Config, want) {
		t.Errorf("config:\n got %+v\nwant %+v", d.File.Config, want)
	}
	if _, ok := d.File.From["provider"]; ok {
		t.Errorf("provider comes from %q, want no provider field", d.File.From["provider"])
	}
	if fact := "cloud: handover's simulated provider (kube-controller-manager --cloud-provider=kind"; !strings.Contains(d.File.Header, fact) {
		t.Errorf("the header does not say %q:\n%s", fact, d.File.Header)
	}
	if strings.Contains(d.File.Header, "has no provider of") {
		t.Errorf("the header says handover has no provider of kind's cloud:\n%s", d.File.Header)
	}
	assertReadsBack(t, d, want)
}

// A cluster naming no cloud at all runs the simulated provider too, said
// as a note.
func TestDescribeAClusterOfNoCloud(t *testing.T) {
	tc := awsCluster()
	for _, n := range tc.nodes {
		n.Spec.ProviderID = ""
	}
	tc.ccm = nil
	d := tc.describe(t)
	if d.File.Config.Provider != "" || !strings.Contains(d.File.Header, "no manager names a cloud provider and no node has a ProviderID") {
		t.Errorf("provider %q, header:\n%s", d.File.Config.Provider, d.File.Header)
	}
	if !strings.Contains(d.File.Header, "none on 2 node(s)") {
		t.Errorf("the header does not count the nodes without a ProviderID:\n%s", d.File.Header)
	}
}

// A manager's pod that finished or is being deleted (a rollout's old
// one, an evicted one) keeps flags the cluster no longer runs: it is not
// read, and the header says so.
func TestDescribeLeavesOutPodsThatAreGone(t *testing.T) {
	tc := awsCluster()
	old := tc.ccm.DeepCopy()
	old.Name, old.Status.Phase = "aws-cloud-controller-manager-old", corev1.PodFailed
	old.Spec.Containers[0].Args = append(slices.Clone(old.Spec.Containers[0].Args), "--concurrent-service-syncs=9")
	leaving := tc.ccm.DeepCopy()
	leaving.Name, leaving.DeletionTimestamp = "aws-cloud-controller-manager-leaving", &metav1.Time{}
	leaving.Finalizers = []string{"test"}
	leaving.Spec.Containers[0].Args = old.Spec.Containers[0].Args
	tc.others = append(tc.others, old, leaving)
	d := tc.describe(t)
	if want := awsRehearsal(); !reflect.DeepEqual(d.File.Config, want) {
		t.Errorf("config:\n got %+v\nwant %+v\n%s", d.File.Config, want, d.File.Header)
	}
	for _, w := range []string{"not read: cloud-controller-manager's pod kube-system/aws-cloud-controller-manager-old (Failed)",
		"not read: cloud-controller-manager's pod kube-system/aws-cloud-controller-manager-leaving (being deleted)"} {
		if !strings.Contains(d.File.Header, w) {
			t.Errorf("header lacks %q:\n%s", w, d.File.Header)
		}
	}
}
