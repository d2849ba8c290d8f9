package live_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The kube-controller-manager's leader migration: a file on the node is
// named with the flag that gives it, never carried; no file is the
// built-in default.
func TestDescribeTheKCMsLeaderMigration(t *testing.T) {
	const onNode = "/etc/kubernetes/leader-migration.yaml"
	for _, c := range []struct {
		name    string
		flags   []string
		mount   bool   // the file mounted from the node
		kcm     string // leaderMigration.kcm, "" for none
		says    []string
		notSays string
	}{
		{name: "a file on the node", mount: true,
			flags: []string{"--enable-leader-migration", "--leader-migration-config=" + onNode},
			says: []string{"kube-controller-manager --leader-migration-config=" + onNode + ": a file on the node (hostPath /etc/kubernetes/kcm-lm.yaml)",
				"set leaderMigration.kcm"}},
		{name: "a file in the image",
			flags: []string{"--enable-leader-migration", "--leader-migration-config", onNode},
			says:  []string{onNode + ": in the container's image or file system", "set leaderMigration.kcm"}},
		{name: "no file", flags: []string{"--enable-leader-migration"}, kcm: "default",
			notSays: "leaderMigration.kcm"},
		{name: "enabled as pflag reads a bool", flags: []string{"--enable-leader-migration=True"}, kcm: "default"},
		{name: "disabled", flags: []string{"--enable-leader-migration=false", "--leader-migration-config=" + onNode}, mount: true,
			notSays: "leaderMigration.kcm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := awsCluster()
			tc.kcm.Spec.Containers[0].Command = slices.Concat(kcmCommand, c.flags)
			if c.mount {
				hostPath(tc.kcm, "leader-migration", "/etc/kubernetes/kcm-lm.yaml", onNode)
			}
			d := tc.describe(t)
			lm := d.File.Config.LeaderMigration
			if got, ok := lm["kcm"]; got != c.kcm || ok != (c.kcm != "") {
				t.Errorf("leaderMigration %q, want kcm %q", lm, c.kcm)
			}
			if lm["ccm"] != "leader-migration-ccm.yaml" || len(d.Beside) != 1 {
				t.Errorf("leaderMigration %q, beside %q: want the CCM's file alone", lm, d.Beside)
			}
			for _, s := range c.says {
				if !strings.Contains(d.File.Header, s) {
					t.Errorf("the header does not say %q:\n%s", s, d.File.Header)
				}
			}
			if c.notSays != "" && strings.Contains(d.File.Header, c.notSays) {
				t.Errorf("the header says %q:\n%s", c.notSays, d.File.Header)
			}
			assertReadsBack(t, d, d.File.Config)
		})
	}
}

// The leader-migration file is found in a ConfigMap volume through its
// items (key to path) and through a subPath mount; a path no item
// projects is named, not guessed.
func TestDescribeFindsTheConfigMapKey(t *testing.T) {
	items := []corev1.KeyToPath{{Key: "config", Path: "leader-migration.yaml"}}
	for _, c := range []struct {
		name    string
		mount   string // the CCM's mount of the ConfigMap volume
		subPath string
		items   []corev1.KeyToPath
		key     string // the key read, "" for none
		says    string
	}{
		{name: "items", mount: lmDir, items: items, key: "config"},
		{name: "subPath", mount: lmPath, subPath: "ccm.yaml", key: "ccm.yaml"},
		{name: "subPath through items", mount: lmPath, subPath: "leader-migration.yaml", items: items, key: "config"},
		{name: "items without the path", mount: lmDir, items: []corev1.KeyToPath{{Key: "config", Path: "other.yaml"}},
			says: "ConfigMap " + lmConfigMap + " projects no key at leader-migration.yaml"},
		{name: "no such key", mount: lmDir, items: []corev1.KeyToPath{{Key: "missing", Path: "leader-migration.yaml"}},
			says: "ConfigMap kube-system/" + lmConfigMap + " has no key missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := awsCluster()
			tc.others[0] = configMap(lmConfigMap, map[string]string{"config": lmConfig, "ccm.yaml": lmConfig,
				"leader-migration.yaml": "the wrong key"})
			vm := &tc.ccm.Spec.Containers[0].VolumeMounts[0]
			vm.MountPath, vm.SubPath = c.mount, c.subPath
			tc.ccm.Spec.Volumes[0].ConfigMap.Items = c.items
			d := tc.describe(t)
			if c.key == "" {
				if _, ok := d.File.Config.LeaderMigration["ccm"]; ok || len(d.Beside) > 0 {
					t.Errorf("leaderMigration %q, beside %q: want none", d.File.Config.LeaderMigration, d.Beside)
				}
				if !strings.Contains(d.File.Header, c.says) || !strings.Contains(d.File.Header, "set leaderMigration.ccm") {
					t.Errorf("the header does not say %q with the flag:\n%s", c.says, d.File.Header)
				}
				return
			}
			if d.Beside["leader-migration-ccm.yaml"] != lmConfig {
				t.Errorf("beside %q, want the configuration of key %s", d.Beside, c.key)
			}
			if from, want := d.File.From["leaderMigration.ccm"], "ConfigMap kube-system/"+lmConfigMap+" key "+c.key; !strings.Contains(from, want) {
				t.Errorf("leaderMigration.ccm comes from %q, want %q", from, want)
			}
		})
	}
}

// A cloud-config is never read, and the header says how to give a copy.
func TestDescribeNamesTheCloudConfigItDoesNotRead(t *testing.T) {
	d := awsCluster().describe(t)
	want := "cloud-controller-manager --cloud-config=/etc/kubernetes/aws/cloud-ccm.conf: a file on the node, never read (it may hold a secret): copy it beside the rehearsal file and set cloudConfig.ccm to its name"
	if !strings.Contains(d.File.Header, want) {
		t.Errorf("header does not say %q:\n%s", want, d.File.Header)
	}
	for name := range d.Beside {
		if strings.Contains(name, "cloud") {
			t.Errorf("a cloud-config was written beside the file: %s", name)
		}
	}
}
