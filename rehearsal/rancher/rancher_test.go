package rancher

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/rehearsal"
)

// The seed's RKE2 pair (testdata: Rancher's Amazon runbook, RKE2 tab,
// before and after its step 5) gives the rke2 runbook with the aws
// flavour on the versions the files name, and the edit is step 5: the
// switch, leader migration removed from kube-controller-manager, the
// version raised.
func TestRKE2SeedPairIsItsStep5(t *testing.T) {
	d := describe(t, ReadProvisioningCluster, "testdata/rke2-aws-before-step5.yaml", "testdata/rke2-aws-step5.yaml")
	c := d.Config
	want := rehearsal.Config{Procedure: migrate.RKE2, Flavour: "aws", Provider: "aws", From: "v1.26.13", To: "v1.27.4",
		LeaderMigration: map[string]string{"kcm": "default", "ccm": "default"},
		CCMArgs:         []string{"--configure-cloud-routes=false", "--v=5"}, CCM: rehearsal.CCMInput{Form: "daemonset"}}
	if !sameConfig(c, want) {
		t.Errorf("derived %+v\nwant    %+v", c, want)
	}
	e := d.Edit
	if e == nil || !slices.Equal(e.Steps, []string{"5"}) || !strings.Contains(e.Runbook, "Amazon") || len(e.Findings) != 0 {
		t.Fatalf("the edit: %+v", e)
	}
	for _, what := range []string{"the cloud provider aws → external", "enable-leader-migration removed", "v1.26.13+rke2r1 → v1.27.4+rke2r1"} {
		if !slices.ContainsFunc(e.Changes, func(c Change) bool { return strings.Contains(c.What, what) && c.Step == "5" }) {
			t.Errorf("no change %q of step 5 in %+v", what, e.Changes)
		}
	}
	if from := d.From["from"]; !strings.Contains(from, "+rke2r1 stripped") || !strings.Contains(from, "spec.kubernetesVersion") {
		t.Errorf("from's origin does not say what was stripped where: %q", from)
	}
}

// The file derived from the pair is a rehearsal file: rehearse --config
// reads it back to the same fields, and it validates as a rehearsal.
func TestTheDerivedFileLoadsAndValidates(t *testing.T) {
	d := describe(t, ReadProvisioningCluster, "testdata/rke2-aws-before-step5.yaml", "testdata/rke2-aws-step5.yaml")
	raw, err := d.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# The edit is step 5 of Rancher: Migrating Amazon In-tree to Out-of-tree, RKE2", "+rke2r1 stripped", "\nprocedure: rke2\n"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the file does not say %q:\n%s", want, raw)
		}
	}
	path := filepath.Join(t.TempDir(), "rehearsal.yaml")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := rehearsal.ReadFile(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if !sameConfig(c, d.Config) {
		t.Errorf("read back %+v\nderived   %+v", c, d.Config)
	}
	if _, err := c.Validate(); err != nil {
		if strings.Contains(err.Error(), "this machine (") {
			t.Skipf("SKIPPING validation on this machine: %v", err)
		}
		t.Fatalf("the derived rehearsal does not validate: %v\n%s", err, raw)
	}
}

// Azure's RKE2 pair: the azure flavour, its chart a Deployment with the
// flags its values give, and kube-controller-manager's flags as Rancher's
// planner merges the entries (the control planes' entry replaces the
// flags of the one for every machine whole).
func TestRKE2AzurePair(t *testing.T) {
	d := describe(t, ReadProvisioningCluster, "testdata/rke2-azure-before-step5.yaml", "testdata/rke2-azure-step5.yaml")
	want := rehearsal.Config{Procedure: migrate.RKE2, Flavour: "azure", Provider: "azure", From: "v1.29.15", To: "v1.30.14",
		LeaderMigration: map[string]string{"kcm": "default"}, KCMArgs: []string{"--configure-cloud-routes=false"},
		CCMArgs: []string{"--allocate-node-cidrs=false", "--configure-cloud-routes=false"}, CCM: rehearsal.CCMInput{Form: "deployment"}}
	if !sameConfig(d.Config, want) {
		t.Errorf("derived %+v\nwant    %+v", d.Config, want)
	}
	if d.Edit == nil || !slices.Equal(d.Edit.Steps, []string{"5"}) || !strings.Contains(d.Edit.Runbook, "Azure") {
		t.Errorf("the edit: %+v", d.Edit)
	}
	for _, says := range []string{"placeholder: --cluster-name not carried", "kubectl patch", "Secret azure-cloud-config not carried"} {
		if !hasNote(d, says) {
			t.Errorf("no note %q in %v", says, d.Notes)
		}
	}
}

// An RKE cluster.yml gives the rke runbook; the pair (step 5's snippet in
// Rancher's YAML of the cluster, rancher_kubernetes_engine_config) is its
// steps 5 and 6. One file alone keeps its version.
func TestRKEClusterYML(t *testing.T) {
	d := describe(t, ReadRKEConfig, "testdata/rke-aws-before-step5.yml", "testdata/rke-aws-step5.yml")
	want := rehearsal.Config{Procedure: migrate.RKE, Flavour: "external-aws", Provider: "aws", From: "v1.26.13", To: "v1.27.4",
		LeaderMigration: map[string]string{"kcm": "default"}}
	if !sameConfig(d.Config, want) {
		t.Errorf("derived %+v\nwant    %+v", d.Config, want)
	}
	if d.Edit == nil || !slices.Equal(d.Edit.Steps, []string{"5", "6"}) || !strings.Contains(d.Edit.Runbook, "RKE") {
		t.Errorf("the edit: %+v", d.Edit)
	}
	if !hasNote(d, "a cluster.yml installs no chart") {
		t.Errorf("no note on the chart: %v", d.Notes)
	}
	one := describe(t, ReadRKEConfig, "testdata/rke-aws-before-step5.yml", "")
	if one.Config.From != "v1.26.13" || one.Config.To != "v1.26.13" || one.Edit != nil || !strings.Contains(one.From["from"], "-rancher1-1 stripped") {
		t.Errorf("one file: %+v, edit %+v, from %q", one.Config, one.Edit, one.From["from"])
	}
}

// Each of the runbook's earlier steps is found as its own edit: step 1
// adds enable-leader-migration to kube-controller-manager, step 3 the
// chart; a switch without step 1 is the route with downtime, and a version
// raised before the switch is out of the runbook's order.
func TestEarlierStepsAndOrder(t *testing.T) {
	before := readText(t, "testdata/rke2-aws-before-step5.yaml")
	noLM := strings.Replace(before, "          kube-controller-manager-arg:\n            - enable-leader-migration\n", "          kube-controller-manager-arg: []\n", 1)
	noChart := before[:strings.Index(before, "    additionalManifest:")] + before[strings.Index(before, "    upgradeStrategy:"):]
	after := readText(t, "testdata/rke2-aws-step5.yaml")
	raisedOnly := strings.Replace(before, "v1.26.13+rke2r1", "v1.27.4+rke2r1", 1)
	// Rancher's AWS set-up keeps cloud-provider-name aws for the node names
	// and makes kube-controller-manager external with a flag of its own.
	keepsName := strings.Replace(after, "cloud-provider-name: external", "cloud-provider-name: aws", 1)
	keepsName = strings.Replace(keepsName, "kube-controller-manager-arg: []", "kube-controller-manager-arg: [cloud-provider=external]", 1)
	for _, c := range []struct {
		name, before, after string
		steps               []string
		finding, change     string
	}{
		{"step 1", noLM, before, []string{"1"}, "", "kube-controller-manager: enable-leader-migration added"},
		{"step 3", noChart, before, []string{"3"}, "", "the aws-cloud-controller-manager chart added, with --enable-leader-migration"},
		{"the switch without step 1", noLM, after, []string{"5"}, "route with downtime", ""},
		{"a version raised before the switch", before, raisedOnly, nil, "still runs the in-tree provider", ""},
		{"the switch keeping cloud-provider-name aws", before, keepsName, []string{"5"}, "", "the cloud provider aws → external"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := describe(t, ReadProvisioningCluster, writeText(t, "before.yaml", c.before), writeText(t, "after.yaml", c.after))
			if !slices.Equal(d.Edit.Steps, c.steps) {
				t.Errorf("steps %v, want %v: %+v", d.Edit.Steps, c.steps, d.Edit.Changes)
			}
			if c.finding != "" && !slices.ContainsFunc(d.Edit.Findings, func(f string) bool { return strings.Contains(f, c.finding) }) {
				t.Errorf("no finding %q in %v", c.finding, d.Edit.Findings)
			}
			if c.change != "" && !slices.ContainsFunc(d.Edit.Changes, func(ch Change) bool { return ch.What == c.change && ch.Step == c.steps[0] }) {
				t.Errorf("no change %q of step %s in %+v", c.change, c.steps[0], d.Edit.Changes)
			}
		})
	}
}

// What cannot be mapped is a note naming its field, never a guess: a
// version handover has no node image of stays the cluster's (rehearse
// refuses it, naming it), a cloud provider of another runbook leaves the
// flavour to the user.
func TestWhatCannotBeMappedIsNoted(t *testing.T) {
	before := readText(t, "testdata/rke2-aws-before-step5.yaml")
	d := describe(t, ReadProvisioningCluster, writeText(t, "c.yaml", strings.Replace(before, "v1.26.13+rke2r1", "v1.26.15+rke2r1", 1)), "")
	if d.Config.From != "v1.26.15" || !hasNote(d, "no node image of v1.26.15; of its minor it builds v1.26.13") {
		t.Errorf("from %q, notes %v", d.Config.From, d.Notes)
	}
	c, err := d.Rehearsal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "v1.26.15") {
		t.Errorf("rehearsing an unbuilt version: %v", err)
	}
	vsphere := strings.Replace(before, "cloud-provider-name: aws", "cloud-provider-name: vsphere", 1)
	vsphere = vsphere[:strings.Index(vsphere, "    additionalManifest:")] + vsphere[strings.Index(vsphere, "    upgradeStrategy:"):]
	vsphere = strings.ReplaceAll(vsphere, "Amazonec2Config", "VmwarevsphereConfig")
	d = describe(t, ReadProvisioningCluster, writeText(t, "v.yaml", vsphere), "")
	if d.Config.Flavour != "" || d.Config.Provider != "" || !hasNote(d, `cloud provider "vsphere": handover rehearses Rancher's runbooks for aws, azure, external`) {
		t.Errorf("flavour %q provider %q, notes %v", d.Config.Flavour, d.Config.Provider, d.Notes)
	}
}

// Bad input is refused with the file, the line and the field.
func TestBadInputNamesTheField(t *testing.T) {
	cluster := readText(t, "testdata/rke2-aws-before-step5.yaml")
	rke := readText(t, "testdata/rke-aws-before-step5.yml")
	for _, c := range []struct {
		name, text string
		read       func(string) (*Cluster, error)
		want       string
	}{
		{"malformed YAML", "spec: [1\n", ReadProvisioningCluster, "not YAML"},
		{"another kind", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n", ReadProvisioningCluster, "apps/v1 Deployment: want a provisioning.cattle.io/v1 Cluster"},
		{"a cluster.yml as a Cluster", rke, ReadProvisioningCluster, "an RKE cluster.yml, not a provisioning.cattle.io/v1 Cluster"},
		{"a Cluster as a cluster.yml", cluster, ReadRKEConfig, "a provisioning.cattle.io/v1 Cluster, not an RKE cluster.yml"},
		{"another kind as a cluster.yml", "apiVersion: v1\nkind: ConfigMap\n", ReadRKEConfig, "v1 ConfigMap, not an RKE cluster.yml"},
		{"no RKE key", "foo: bar\n", ReadRKEConfig, "not an RKE cluster.yml"},
		{"two documents", cluster + "\n---\n" + cluster, ReadProvisioningCluster, "more than one YAML document"},
		{"a repeated key", strings.Replace(cluster, "kind: Cluster\n", "kind: Cluster\nkind: Cluster\n", 1), ReadProvisioningCluster, "already defined"},
		{"a list for a name", strings.Replace(cluster, "cloud-provider-name: aws", "cloud-provider-name: [aws]", 1), ReadProvisioningCluster,
			":29: spec.rkeConfig.machineGlobalConfig.cloud-provider-name: want a string, got a list"},
		{"not a version", strings.Replace(cluster, "v1.26.13+rke2r1", "v1.26.13-rancher1-1", 1), ReadProvisioningCluster,
			`spec.kubernetesVersion: "v1.26.13-rancher1-1" is not a Kubernetes version`},
		{"no version", strings.Replace(cluster, "  kubernetesVersion: v1.26.13+rke2r1\n", "", 1), ReadProvisioningCluster, "spec.kubernetesVersion: missing"},
		{"no rkeConfig", "apiVersion: provisioning.cattle.io/v1\nkind: Cluster\nspec:\n  kubernetesVersion: v1.27.4+rke2r1\n", ReadProvisioningCluster, "spec.rkeConfig: missing"},
		{"a flag's bad boolean", strings.Replace(cluster, "- enable-leader-migration\n", "- enable-leader-migration=maybe\n", 1), ReadProvisioningCluster,
			`kube-controller-manager-arg[0]: "maybe" is not true or false`},
		{"a bad selector", strings.Replace(cluster, "operator: In", "operator: Near", 1), ReadProvisioningCluster, "machineLabelSelector"},
		{"a chart's bad YAML", strings.Replace(cluster, "hostNetworking: true", "hostNetworking: [true", 1), ReadProvisioningCluster,
			"additionalManifest[0].spec.valuesContent: not YAML"},
		{"two charts", strings.Replace(cluster, "    upgradeStrategy:", chartAgain(cluster)+"    upgradeStrategy:", 1), ReadProvisioningCluster, "a second cloud-controller-manager chart"},
		{"RKE's unquoted true", strings.Replace(rke, `enable-leader-migration: "true"`, "enable-leader-migration: true", 1), ReadRKEConfig,
			"services.kube-controller.extra_args.enable-leader-migration: want a string, got a boolean (true) (quote it)"},
		{"RKE in two places", rke + "rancher_kubernetes_engine_config:\n  cluster_name: x\n", ReadRKEConfig, "both at the top and under rancher_kubernetes_engine_config"},
		{"two clouds", strings.ReplaceAll(cluster, "Amazonec2Config", "AzureConfig"), ReadProvisioningCluster, "one cluster runs on one cloud"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, err := c.read(writeText(t, "in.yaml", c.text))
			if err == nil && cl != nil {
				_, err = Describe(cl, nil)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, got %v", c.want, err)
			}
			if !strings.Contains(err.Error(), "in.yaml") {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
}

// chartAgain is the cluster's additionalManifest's chart as a second
// document.
func chartAgain(cluster string) string {
	start := strings.Index(cluster, "    additionalManifest: |-\n") + len("    additionalManifest: |-\n")
	end := strings.Index(cluster, "    upgradeStrategy:")
	return "      ---\n" + cluster[start:end]
}

// A file over the limit, and what is not a regular file, are refused
// before they are read.
func TestOversizedAndSpecialFiles(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", 4<<20)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, "/dev/zero", t.TempDir()} {
		for _, read := range []func(string) (*Cluster, error){ReadProvisioningCluster, ReadRKEConfig} {
			if _, err := read(path); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: %v", path, err)
			}
		}
	}
}

// A pair that cannot be one cluster before and after an edit is refused,
// naming the fields that disagree.
func TestContradictoryPairs(t *testing.T) {
	before := readText(t, "testdata/rke2-aws-before-step5.yaml")
	after := readText(t, "testdata/rke2-aws-step5.yaml")
	azure := strings.Replace(readText(t, "testdata/rke2-azure-step5.yaml"), "name: prod-north", "name: prod-east", 1)
	for _, c := range []struct {
		name, before, after, want string
	}{
		{"another cluster", before, strings.Replace(after, "name: prod-east", "name: prod-west", 1), `metadata.name: "prod-east" before, but`},
		{"another namespace", before, strings.Replace(after, "namespace: fleet-default", "namespace: fleet-local", 1), "metadata.namespace"},
		{"another cloud", before, azure, "is aws's, but"},
		{"the other way round", after, before, "older than v1.27.4+rke2r1 before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := ReadProvisioningCluster(writeText(t, "before.yaml", c.before))
			if err != nil {
				t.Fatal(err)
			}
			a, err := ReadProvisioningCluster(writeText(t, "after.yaml", c.after))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Describe(b, a); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, got %v", c.want, err)
			}
		})
	}
	b, _ := ReadProvisioningCluster("testdata/rke2-aws-before-step5.yaml")
	r, _ := ReadRKEConfig("testdata/rke-aws-step5.yml")
	if _, err := Describe(b, r); err == nil || !strings.Contains(err.Error(), "one cluster's YAML before and after") {
		t.Errorf("an RKE2 Cluster and an RKE cluster.yml: %v", err)
	}
}

// The tables name only what the procedures register: each flavour is one
// of its procedure's, each chart's form one the procedure runs.
func TestTablesHoldToTheRegistrations(t *testing.T) {
	for proc, byCloud := range flavours {
		r, err := migrate.Lookup(proc)
		if err != nil {
			t.Fatal(err)
		}
		for cloud, f := range byCloud {
			if !slices.Contains(r.Flavours, f) {
				t.Errorf("%s's flavour for %s, %s, is not one it has (%v)", proc, cloud, f, r.Flavours)
			}
			if _, ok := runbooks[proc][cloud]; !ok {
				t.Errorf("%s on %s has no runbook's steps", proc, cloud)
			}
		}
		for name, n := range cloudNames[proc] {
			if n.flavour != "" && !slices.Contains(r.Flavours, n.flavour) {
				t.Errorf("%s's name %s selects %s, not a flavour of it", proc, name, n.flavour)
			}
		}
		for chart, row := range charts {
			if !slices.Contains(r.Managers.CCMForms, row.form) {
				t.Errorf("the %s chart's %s is no form of %s", chart, row.form, proc)
			}
		}
	}
}

// describe reads before (and after, unless "") and describes them.
func describe(t *testing.T, read func(string) (*Cluster, error), before, after string) *Description {
	t.Helper()
	b, err := read(before)
	if err != nil {
		t.Fatal(err)
	}
	var a *Cluster
	if after != "" {
		if a, err = read(after); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Describe(b, a)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameConfig compares the fields a description sets.
func sameConfig(a, b rehearsal.Config) bool {
	return a.Procedure == b.Procedure && a.Flavour == b.Flavour && a.Provider == b.Provider && a.From == b.From && a.To == b.To &&
		maps.Equal(a.LeaderMigration, b.LeaderMigration) && slices.Equal(a.KCMArgs, b.KCMArgs) && slices.Equal(a.CCMArgs, b.CCMArgs) && a.CCM == b.CCM
}

func hasNote(d *Description, says string) bool {
	return slices.ContainsFunc(d.Notes, func(n Note) bool { return strings.Contains(n.String(), says) })
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeText(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
