package cloudcluster

import (
	"reflect"
	"strings"
	"testing"

	"github.com/handover-sh/handover/providers"
)

// The simulated provider is registered and fills every part a procedure
// may ask for: a part left out would fail a procedure mid-way.
func TestSimulatedProviderIsComplete(t *testing.T) {
	p, err := providers.Lookup(providers.Simulated)
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(p)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("the simulated provider leaves %s unset", v.Type().Field(i).Name)
		}
	}
	pod := p.CCMStaticPod("v1.31.4", "c", "10.244.0.0/16", []string{"--enable-leader-migration"}, map[string]string{"leadermigration": "/etc/leadermigration.conf"})
	if !strings.Contains(pod, "/etc/leadermigration.conf") || !strings.Contains(pod, "--enable-leader-migration") {
		t.Errorf("the static pod mounts no configuration or drops a flag:\n%s", pod)
	}
	m := p.CCMManifest(providers.CCMWorkloadInput{Form: DaemonSet, Version: "v1.30.14", Cluster: "c", PodSubnet: "10.244.0.0/16",
		Config: "kind: LeaderMigrationConfiguration\n", ConfigPath: "/etc/leadermigration.conf"})
	if !strings.Contains(m, "name: "+p.LeaderMigrationConfigMap) {
		t.Errorf("a workload with a configuration has no ConfigMap %s:\n%s", p.LeaderMigrationConfigMap, m)
	}
	if _, err := providers.Lookup("no-such-cloud"); err == nil || !strings.Contains(err.Error(), providers.Simulated) {
		t.Errorf("an unknown provider: %v", err)
	}
}
