package main

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// rehearse's --provider names every provider a rehearsal accepts, with
// whose code it runs, and marks the default: read from the registered
// providers, not written by hand.
func TestRehearseProviderHelpNamesTheRegisteredProviders(t *testing.T) {
	c, _, err := newRootCommand().Find([]string{"rehearse"})
	if err != nil {
		t.Fatal(err)
	}
	f := c.Flags().Lookup("provider")
	if f == nil {
		t.Fatal("rehearse has no --provider")
	}
	if f.DefValue != "" {
		t.Errorf("--provider defaults to %q, want \"\" (the default provider)", f.DefValue)
	}
	named := 0
	for _, p := range providers.All() {
		want := p.Name() + " (" + p.Runs().String()
		in := strings.Contains(f.Usage, want)
		if accepted := cloudcluster.ValidateProvider(p.Name()) == nil; in != accepted {
			t.Errorf("--provider's help names %s: %v, a rehearsal accepts it: %v\n%s", p.Name(), in, accepted, f.Usage)
		}
		if in {
			named++
		}
	}
	if named < 2 {
		t.Errorf("--provider's help names %d providers: %s", named, f.Usage)
	}
	def := providers.Default()
	if !strings.Contains(f.Usage, def.Name()+" ("+def.Runs().String()+"; the default)") {
		t.Errorf("--provider's help does not mark %s the default: %s", def.Name(), f.Usage)
	}
}
