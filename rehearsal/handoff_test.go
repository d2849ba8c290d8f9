package rehearsal

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lint"
	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func lease(name, holder string) *coordv1.Lease {
	return &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name}, Spec: coordv1.LeaseSpec{HolderIdentity: &holder}}
}

func TestHandedOffWhenTheCCMLeaderHoldsTheMigrationLease(t *testing.T) {
	c := fake.NewSimpleClientset(lease("m", "cp1_a"), lease("kube-controller-manager", "cp1_a"), lease("cloud-controller-manager", "cp4_b"))
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if handedOff(c, "m", true)(ctx) {
		t.Fatal("handed off while kube-controller-manager holds the migration lease")
	}
	if _, err := c.CoordinationV1().Leases("kube-system").Update(context.Background(), lease("m", "cp4_b"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel2()
	if !handedOff(c, "m", true)(ctx2) {
		t.Fatal("not handed off though the CCM's leader holds the migration lease")
	}
}

// A manager that never takes the migration lease has the controllers once
// it leads.
func TestHandedOffWhenAManagerWithoutMigrationLeads(t *testing.T) {
	c := fake.NewSimpleClientset(lease("m", "cp1_a"), lease("kube-controller-manager", "cp1_a"))
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if handedOff(c, "m", false)(ctx) {
		t.Fatal("handed off before the cloud-controller-manager leads")
	}
	if _, err := c.CoordinationV1().Leases("kube-system").Create(context.Background(), lease("cloud-controller-manager", "cp4_b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel2()
	if !handedOff(c, "m", false)(ctx2) {
		t.Fatal("not handed off though the cloud-controller-manager leads")
	}
}

func TestConfigValidation(t *testing.T) {
	c := Default()
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if p.Load.Name != "moderate" || p.Fault.Active() || len(p.Procedures) != 1 || p.Topology.ControlPlanes != 3 || p.Topology.Workers != 2 {
		t.Fatalf("default plan %s", p)
	}
	c.Rollback = true
	if p, err = c.Validate(); err != nil || len(p.Procedures) != 2 {
		t.Fatalf("a rollback rehearses the migration first: %v %v", p, err)
	}
	c = Default()
	c.ObserveAfter = "1m"
	if p, err = c.Validate(); err != nil || p.ObserveAfter != time.Minute {
		t.Fatalf("observeAfter 1m: %v %v", p, err)
	}
	for _, bad := range []string{"soon", "-1s", "2h"} {
		c.ObserveAfter = bad
		if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "observeAfter") {
			t.Errorf("observeAfter %q: %v", bad, err)
		}
	}
}

// A rehearsal file's intervals: reach the steps; unknown names and bad
// durations are refused before anything runs.
func TestConfigIntervals(t *testing.T) {
	f := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(f, []byte("intervals:\n  settle: 7m\n  poll: 2s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	last := p.Procedures[0].Steps[len(p.Procedures[0].Steps)-1]
	if last.Wait.Timeout != 7*time.Minute || p.Spec.Intervals.Of(migrate.IntervalPoll) != 2*time.Second {
		t.Errorf("settle waits %s, poll %s", last.Wait.Timeout, p.Spec.Intervals.Of(migrate.IntervalPoll))
	}
	for bad, want := range map[string]string{"setle": `no interval "setle"`, "settle": "positive"} {
		c := Default()
		c.Intervals = map[string]string{bad: "0s"}
		if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("intervals %s: %v", bad, err)
		}
	}
	c = Default()
	c.Intervals = map[string]string{"settle": "soon"}
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "settle") {
		t.Errorf("intervals settle: soon: %v", err)
	}
}

// thresholds: are validated with the rest of the file.
func TestConfigThresholds(t *testing.T) {
	c := Default()
	c.Thresholds = map[string]string{"max-outage": "8s"}
	p, err := c.Validate()
	if err != nil || p.Thresholds["max-outage"] != "8s" {
		t.Fatalf("%v %v", p, err)
	}
	c.Thresholds = map[string]string{"max-outag": "8s"}
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "thresholds") {
		t.Fatalf("an unknown threshold: %v", err)
	}
}

// leaderMigration: paths are relative to the rehearsal file; the files
// reach the spec, and the example rehearsal file validates.
func TestConfigLeaderMigration(t *testing.T) {
	c, err := ReadFile("../examples/taskdoc-verbatim/rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.KCMConfig == nil || p.Spec.CCMConfig == nil || !strings.HasSuffix(p.Spec.CCMConfig.Path, "examples/taskdoc-verbatim/ccm.yaml") {
		t.Fatalf("configs %+v %+v", p.Spec.KCMConfig, p.Spec.CCMConfig)
	}
	if p.Spec.Lint().Errors() == 0 {
		t.Error("the task doc's verbatim files pass the lint")
	}
	c.LeaderMigration = map[string]string{"kcm": "nowhere.yaml"}
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "leaderMigration") {
		t.Errorf("a missing file: %v", err)
	}
}

// cloudConfig: paths are relative to the rehearsal file; the example's
// files validate and differ only where their releases differ (not
// compared); the cluster is made with the variables the plan lists.
func TestConfigCloudConfig(t *testing.T) {
	c, err := ReadFile("../examples/aws-cloud-configs/rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.CCMCloudConfig == nil || !strings.HasSuffix(p.Spec.CCMCloudConfig.Path, "examples/aws-cloud-configs/ccm.conf") {
		t.Fatalf("ccm's cloud-config %+v", p.Spec.CCMCloudConfig)
	}
	var global []string
	for _, f := range p.Spec.Lint() {
		if f.Severity == lint.Error {
			t.Errorf("the example: %v", f)
		}
		if strings.HasPrefix(f.Where, "[Global]") {
			global = append(global, f.Where)
		}
	}
	if len(global) != 0 {
		t.Errorf("the example's files differ in %v, where only their releases differ", global)
	}
	if n := len(clusterOptions(p.Spec)); n != 3 {
		t.Errorf("%d cluster options, want the provider, the cloud-configs and the policies", n)
	}
	for side, want := range map[string][][2]string{"kcm": {{"DisableStrictZoneCheck", "true"}, {"KubernetesClusterID", "prod-eu"}}, "ccm": {{"KubernetesClusterID", "prod-eu"}}} {
		if vars, _, ok := p.Spec.CarriedCloudConfig(side); !ok || !reflect.DeepEqual(vars, want) {
			t.Errorf("%s's file runs with %v, want %v", side, vars, want)
		}
	}
	// Forced past the lint, a file its provider refuses cannot be rehearsed.
	c.CloudConfig["ccm"], c.Force = c.CloudConfig["kcm"], true
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "would not start") {
		t.Errorf("a refused file, forced: %v", err)
	}
}

// iamPolicy: paths are relative to the rehearsal file, each policy read
// as IAM reads it before anything runs; a component the provider has not,
// a provider without a permission model, a document IAM refuses, each an
// error saying where.
func TestConfigIAMPolicy(t *testing.T) {
	c, err := ReadFile("../examples/aws-iam-policies/rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := p.Spec.Policies["ccm"]; !ok || !strings.HasSuffix(f.Path, "examples/aws-iam-policies/managers-before-1.27.json") || len(f.Data) == 0 {
		t.Fatalf("ccm's policy %+v", p.Spec.Policies)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:*","Resource":"*","Principal":"*"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	good := c.IAMPolicy["ccm"]
	for name, change := range map[string]func(*Config){
		`no component "etcd"`: func(c *Config) { c.IAMPolicy = map[string]string{"etcd": good} },
		"Principal":           func(c *Config) { c.IAMPolicy = map[string]string{"ccm": bad} },
		"permission model":    func(c *Config) { c.Provider, c.From, c.To = "", "", "" },
		"no such file":        func(c *Config) { c.IAMPolicy = map[string]string{"ccm": bad + ".x"} },
	} {
		cc := c
		cc.IAMPolicy = map[string]string{"ccm": good}
		change(&cc)
		if _, err := cc.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// With the managers' lease given, max-gap follows it and carries its
// basis; a max-gap given wins; a lease too long to judge a gap by is an
// error before anything runs.
func TestConfigThresholdsFollowTheLease(t *testing.T) {
	c, err := ReadFile("../examples/long-lease/rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if p.Thresholds["max-gap"] != "1m25s" || !strings.Contains(p.Thresholds["max-gap.basis"], "--leader-elect-lease-duration=60s") {
		t.Errorf("thresholds %v", p.Thresholds)
	}
	c.Thresholds = map[string]string{"max-gap": "2m"}
	if p, err := c.Validate(); err != nil || p.Thresholds["max-gap"] != "2m" || p.Thresholds["max-gap.basis"] != "" {
		t.Errorf("a given max-gap: %v %v", p, err)
	}
	c.Thresholds = nil
	c.CCMArgs = []string{"--leader-elect-lease-duration=10m", "--leader-elect-renew-deadline=40s"}
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "coverage-gap threshold") {
		t.Errorf("a 10m lease: %v", err)
	}
}

// machines: a shape only a provider's own code reads, refused on the
// simulated provider; the example's makes both cluster options.
func TestConfigMachines(t *testing.T) {
	c, err := ReadFile("../examples/aws-second-interface/rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Config.Machines.options()); n != 2 {
		t.Errorf("%d machine options, want the second interface and the unpinned node IP", n)
	}
	c.Provider = ""
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "only with --provider aws") {
		t.Errorf("machines on the simulated provider: %v", err)
	}
}

// network: a shape only a provider's simulated cloud makes, refused on
// the simulated provider and beyond its bounds; the example's makes the
// cluster option.
func TestConfigNetwork(t *testing.T) {
	c, err := ReadFile("../examples/aws-route-tables/rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Network.RouteTables != 2 || len(p.Config.Network.options()) != 1 {
		t.Errorf("network %+v: %d options, want the route tables'", p.Config.Network, len(p.Config.Network.options()))
	}
	c.Network.RouteTables = 9
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "give 1 to 8") {
		t.Errorf("nine route tables: %v", err)
	}
	c.Network.RouteTables, c.Provider = 2, ""
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "only with --provider aws") {
		t.Errorf("network on the simulated provider: %v", err)
	}
	if (NetworkInput{}).options() != nil {
		t.Error("a fresh network shaped")
	}
	c, err = ReadFile("../examples/aws-dhcp-domain/rehearsal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Validate(); err != nil || c.Network.DHCPDomain != "corp.example" {
		t.Errorf("a DHCP domain: %+v, %v", c.Network, err)
	}
	c.Network.DHCPDomain = "Corp_Example"
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "network.dhcpDomain") {
		t.Errorf("a DHCP domain not a name: %v", err)
	}
}

// A provider that batches its route writes (azure's, every 30 s) gets a
// route-settle of three reconciliations and a batch, with its basis, and a
// rehearsal observes that long after the procedure; a given one stands.
func TestConfigThresholdsFollowRouteBatching(t *testing.T) {
	c := Default()
	c.Provider, c.Procedure, c.Flavour, c.From, c.To = "azure", "rke2", "azure", "v1.29.15", "v1.30.14"
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if p.Thresholds["route-settle"] != "1m0s" || !strings.Contains(p.Thresholds["route-settle.basis"], "batched every 30s") || settleAfter(p) != time.Minute {
		t.Errorf("thresholds %v, observed after %s", p.Thresholds, settleAfter(p))
	}
	c.Thresholds = map[string]string{"route-settle": "45s"}
	if p, err := c.Validate(); err != nil || p.Thresholds["route-settle"] != "45s" || settleAfter(p) != 45*time.Second {
		t.Errorf("a given route-settle: %v %v", p, err)
	}
	if p, err := Default().Validate(); err != nil || p.Thresholds["route-settle"] != "" || settleAfter(p) != 0 {
		t.Errorf("the default provider: %v %v", p, err)
	}
	// A route-settle given on any provider is observed for too: a Node's
	// route is then judged, not left out as younger than the threshold.
	d := Default()
	d.Thresholds = map[string]string{"route-settle": "2m"}
	if p, err := d.Validate(); err != nil || settleAfter(p) != 2*time.Minute {
		t.Errorf("a route-settle given on the default provider: %v %v", p, err)
	}
}
