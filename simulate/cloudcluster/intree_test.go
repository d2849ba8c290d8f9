package cloudcluster

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The patch is kubeadm's ClusterConfiguration: the flags and a volume for
// every host file, each mounted where the host has it; what a provider
// leaves out is not there.
func TestInTreeKCMPatch(t *testing.T) {
	var cfg struct {
		Kind              string `json:"kind"`
		ControllerManager struct {
			ExtraArgs    map[string]string `json:"extraArgs"`
			ExtraVolumes []struct {
				Name, HostPath, MountPath, PathType string
				ReadOnly                            bool
			} `json:"extraVolumes"`
		} `json:"controllerManager"`
	}
	k := InTreeKCM{Provider: "p", CloudConfig: "/etc/p.conf", Cluster: "c", Routes: true, GateBack: true, Files: []HostVolume{{"creds", "/etc/creds"}}}
	if err := yaml.UnmarshalStrict([]byte(k.Patch()), &cfg); err != nil {
		t.Fatalf("%v:\n%s", err, k.Patch())
	}
	cm := cfg.ControllerManager
	if cfg.Kind != "ClusterConfiguration" || cm.ExtraArgs["cloud-provider"] != "p" || cm.ExtraArgs["cloud-config"] != "/etc/p.conf" || cm.ExtraArgs["cluster-name"] != "c" ||
		cm.ExtraArgs["configure-cloud-routes"] != "true" || cm.ExtraArgs["feature-gates"] != "DisableCloudProviders=false" {
		t.Errorf("args %v", cm.ExtraArgs)
	}
	if len(cm.ExtraVolumes) != 2 || cm.ExtraVolumes[1].Name != "creds" || cm.ExtraVolumes[1].HostPath != cm.ExtraVolumes[1].MountPath || !cm.ExtraVolumes[0].ReadOnly || cm.ExtraVolumes[0].PathType != "File" {
		t.Errorf("volumes %+v", cm.ExtraVolumes)
	}
	plain := InTreeKCM{Provider: "p", CloudConfig: "/etc/p.conf", Cluster: "c"}.Patch()
	if strings.Contains(plain, "configure-cloud-routes") || strings.Contains(plain, "feature-gates") {
		t.Errorf("a provider without routes or the gate:\n%s", plain)
	}
}
