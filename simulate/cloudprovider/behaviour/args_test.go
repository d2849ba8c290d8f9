package behaviour

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func cloudConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cloud.conf")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestArgsTakeOutWhatTheProviderIgnores(t *testing.T) {
	azure := cloudConfig(t, `{"url":"http://x","profile":"azure"}`)
	for _, tc := range []struct {
		args []string
		lm   LeaderMigration
	}{
		{[]string{"--enable-leader-migration", "--leader-migration-config", "/etc/lm.yaml"}, LeaderMigration{true, "/etc/lm.yaml"}},
		{[]string{"--enable_leader_migration=true", "--leader-migration-config=/x"}, LeaderMigration{true, "/x"}},
		{[]string{"--enable-leader-migration=false", "--leader_migration_config=/x"}, LeaderMigration{false, "/x"}},
	} {
		args := append([]string{"--cloud-config=" + azure, "--v=2"}, tc.args...)
		kept, b, name, lm, err := Args(args)
		if err != nil {
			t.Fatal(err)
		}
		if !b.IgnoresLeaderMigration || b.NodeIPAM != "node-ipam" || name != "azure" || lm != tc.lm {
			t.Errorf("%q: behaviour %+v %q, leader migration %+v", tc.args, b, name, lm)
		}
		if want := []string{"--cloud-config=" + azure, "--v=2"}; !slices.Equal(kept, want) {
			t.Errorf("%q: kept %q, want %q", tc.args, kept, want)
		}
	}
}

func TestArgsKeepUpstreamsManagerAsItIs(t *testing.T) {
	for _, body := range []string{`{"url":"http://x"}`, `{"url":"http://x","profile":"simulated"}`} {
		args := []string{"--cloud-config", cloudConfig(t, body), "--enable-leader-migration"}
		kept, b, _, lm, err := Args(args)
		if err != nil || !slices.Equal(kept, args) || b != (Behaviour{}) || lm != (LeaderMigration{}) {
			t.Errorf("%s: %q %+v %v", body, kept, b, err)
		}
	}
	if _, _, _, _, err := Args([]string{"--cloud-config=" + cloudConfig(t, `{"profile":"gce"}`)}); err == nil || !strings.Contains(err.Error(), "azure") {
		t.Errorf("an unknown profile: %v", err)
	}
	if kept, _, _, _, err := Args([]string{"--v=2"}); err != nil || len(kept) != 1 {
		t.Errorf("without --cloud-config: %q %v", kept, err)
	}
}
