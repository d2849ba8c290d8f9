package ccmbase

import (
	"os"
	"path/filepath"
	"slices"
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

func TestProfileDropsWhatTheProviderIgnores(t *testing.T) {
	azure := cloudConfig(t, `{"url":"http://x","profile":"azure"}`)
	args := []string{"--cloud-config=" + azure, "--enable-leader-migration", "--leader-migration-config", "/etc/lm.yaml", "--leader-migration-config=/x", "--v=2"}
	kept, b, err := Profile(args)
	if err != nil {
		t.Fatal(err)
	}
	if !b.IgnoresLeaderMigration || b.NodeIPAM != "node-ipam" {
		t.Errorf("behaviour %+v", b)
	}
	if want := []string{"--cloud-config=" + azure, "--v=2"}; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
}

func TestProfileKeepsUpstreamsManagerAsItIs(t *testing.T) {
	for _, body := range []string{`{"url":"http://x"}`, `{"url":"http://x","profile":"simulated"}`} {
		args := []string{"--cloud-config", cloudConfig(t, body), "--enable-leader-migration"}
		kept, b, err := Profile(args)
		if err != nil || !slices.Equal(kept, args) || b != (Behaviour{}) {
			t.Errorf("%s: %q %+v %v", body, kept, b, err)
		}
	}
	if _, _, err := Profile([]string{"--cloud-config=" + cloudConfig(t, `{"profile":"gce"}`)}); err == nil {
		t.Error("an unknown profile was accepted")
	}
	if kept, _, err := Profile([]string{"--v=2"}); err != nil || len(kept) != 1 {
		t.Errorf("without --cloud-config: %q %v", kept, err)
	}
}
