package cloudcluster

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"
)

func TestAuditPolicyLogsOnlyTheManagersWrites(t *testing.T) {
	var p struct {
		Kind, APIVersion string
		OmitStages       []string
		Rules            []struct {
			Level     string
			Verbs     []string
			Users     []string
			Resources []struct {
				Group     string
				Resources []string
			}
		}
	}
	if err := yaml.UnmarshalStrict([]byte(AuditPolicy()), &p); err != nil {
		t.Fatalf("policy does not parse: %v", err)
	}
	if p.Kind != "Policy" || p.APIVersion != "audit.k8s.io/v1" || len(p.Rules) != 3 {
		t.Fatalf("policy %+v", p)
	}
	if p.Rules[0].Level != "None" || p.Rules[0].Resources[0].Group != "coordination.k8s.io" {
		t.Error("lease renewals are not dropped first")
	}
	if r := p.Rules[1]; r.Level != "Metadata" || len(r.Users) != len(auditedUsers) || strings.Contains(strings.Join(r.Verbs, ","), "get") {
		t.Errorf("write rule %+v", r)
	}
	if p.Rules[2].Level != "None" {
		t.Error("everything else must not be logged")
	}
}

func TestConfigureAuditMountsThePolicyEverywhere(t *testing.T) {
	cfg := fakeConfigured(newFakeCloud(), v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole)
	for _, n := range cfg.Nodes {
		if !slices.ContainsFunc(n.ExtraMounts, func(m v1alpha4.Mount) bool { return m.ContainerPath == auditPolicy }) {
			t.Fatalf("mounts %+v", n.ExtraMounts)
		}
	}
	if p := strings.Join(cfg.KubeadmConfigPatches, "\n"); !strings.Contains(p, "audit-log-path: "+AuditLogPath) || !strings.Contains(p, "audit-policy-file: "+auditPolicy) {
		t.Fatalf("patch %s", p)
	}
}
