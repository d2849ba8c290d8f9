package procedures_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate"
	_ "github.com/handover-sh/handover/migrate/procedures"
	_ "github.com/handover-sh/handover/providers/all" // the providers
)

// Every registered procedure plans from its defaults, in each flavour: a
// procedure package is its row and its steps, and this holds both.
func TestEveryRegisteredProcedurePlans(t *testing.T) {
	names := migrate.Names()
	for _, want := range []string{migrate.TaskDoc, migrate.RKE2, migrate.RKE, migrate.DefaultConfig, migrate.NodeIPAM} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not registered (registered: %s)", want, strings.Join(names, ", "))
		}
	}
	for _, name := range names {
		r, err := migrate.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		flavours := r.Flavours
		if len(flavours) == 0 {
			flavours = []string{""}
		}
		for _, flavour := range flavours {
			s := migrate.DefaultSpec(name)
			s.Flavour = flavour
			p, err := migrate.Build(s)
			if err != nil {
				t.Errorf("%s %s: %v", name, flavour, err)
				continue
			}
			var plan bytes.Buffer
			if err := migrate.WritePlan(&plan, p, p.Spec); err != nil || len(p.Steps) == 0 || p.Title == "" || p.Source == "" {
				t.Errorf("%s %s: %d steps, title %q, source %q: %v", name, flavour, len(p.Steps), p.Title, p.Source, err)
			}
		}
	}
}

// A name registered twice is refused.
func TestRegisteringANameTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a second taskdoc was registered")
		}
	}()
	migrate.Register(migrate.Registration{Name: migrate.TaskDoc})
}
