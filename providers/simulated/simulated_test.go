package simulated_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/simulated"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// The simulated provider is the default and fills every part a procedure
// may ask for: a part left out would fail a procedure mid-way.
func TestSimulatedProviderIsComplete(t *testing.T) {
	if d := providers.Default(); d.Name() != simulated.Name {
		t.Fatalf("the default provider is %q", d.Name())
	}
	p, ok := providers.As[providers.Managed](providers.Default())
	if !ok {
		t.Fatal("the simulated provider places no manager")
	}
	m := p.Manager()
	v := reflect.ValueOf(m)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("the simulated provider leaves %s unset", v.Type().Field(i).Name)
		}
	}
	pod := m.Forms.StaticPod(providers.StaticPodInput{Version: "v1.31.4", Cluster: "c", PodSubnet: "10.244.0.0/16",
		Args: []string{"--enable-leader-migration"}, Files: map[string]string{"leadermigration": "/etc/leadermigration.conf"}})
	if !strings.Contains(pod, "/etc/leadermigration.conf") || !strings.Contains(pod, "--enable-leader-migration") {
		t.Errorf("the static pod mounts no configuration or drops a flag:\n%s", pod)
	}
	w := m.Forms.Workload(providers.WorkloadInput{Form: cloudcluster.DaemonSet, Version: "v1.30.14", Cluster: "c", PodSubnet: "10.244.0.0/16",
		Config: "kind: LeaderMigrationConfiguration\n", ConfigPath: "/etc/leadermigration.conf"})
	if !strings.Contains(w, "name: "+m.LeaderMigrationConfigMap) {
		t.Errorf("a workload with a configuration has no ConfigMap %s:\n%s", m.LeaderMigrationConfigMap, w)
	}
	if _, err := providers.Lookup("no-such-cloud"); err == nil || !strings.Contains(err.Error(), simulated.Name) {
		t.Errorf("an unknown provider: %v", err)
	}
}
