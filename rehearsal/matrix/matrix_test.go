package matrix

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/rehearsal"
)

func TestShardsCoverEveryPairConfigurationAndImitatedProvider(t *testing.T) {
	shards := Shards()
	if len(shards) == 0 {
		t.Fatal("no shards")
	}
	names := map[string]bool{}
	azure := 0
	for _, sh := range shards {
		if len(sh.Rows)%len(Configurations) != 0 || len(sh.Rows) == 0 {
			t.Errorf("%s: %d rows", sh.Name, len(sh.Rows))
		}
		for _, r := range sh.Rows {
			if names[r.Name()] {
				t.Errorf("%s twice", r.Name())
			}
			names[r.Name()] = true
			if r.From != sh.From || r.To != sh.To {
				t.Errorf("%s in shard %s", r.Name(), sh.Name)
			}
			if r.Provider != "" {
				azure++
				if p, err := profiles.Lookup(providers.ProfileName(r.Provider), sh.From); err != nil || !p.InTree.Value {
					t.Errorf("%s: a provider's rows need it in tree at %s (%v)", r.Name(), sh.From, err)
				}
			}
		}
		if _, err := Lookup(sh.Name); err != nil {
			t.Error(err)
		}
	}
	if azure == 0 {
		t.Error("no azure rows, though azure is in tree on 1.26–1.29")
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), shards[0].Name) {
		t.Errorf("unknown shard: %v", err)
	}
}

// Every row is a rehearsal that validates, with files found from the
// repository's root.
func TestEveryRowValidates(t *testing.T) {
	for _, sh := range Shards() {
		for _, r := range sh.Rows {
			base := rehearsal.Default()
			base.ControlPlanes, base.Workers, base.Load, base.Force, base.Out = 2, 1, "light", true, t.TempDir()
			c := r.Rehearsal(base, "../..")
			c.Name = r.Name()
			if _, err := c.Validate(); err != nil {
				t.Errorf("%s: %v", r.Name(), err)
			}
		}
	}
}
