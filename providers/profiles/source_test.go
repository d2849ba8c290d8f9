package profiles_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
	"github.com/handover-sh/handover/providers/profiles"

	// Every provider registers its profiles.
	_ "github.com/handover-sh/handover/providers/all"
)

type sourced interface{ Sources() []profiles.Source }

// facts walks a profile's fields and returns every fact by its path
// (CCM.Controllers, Naming.ProviderID, …), so a fact added to the types is
// checked without being listed again here.
func facts(p profiles.Profile) map[string]sourced {
	out := map[string]sourced{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f, name := v.Field(i), prefix+v.Type().Field(i).Name
			if s, ok := f.Interface().(sourced); ok {
				out[name] = s
			} else if f.Kind() == reflect.Struct {
				walk(name+".", f)
			}
		}
	}
	walk("", reflect.ValueOf(p))
	return out
}

// dirs caches module directories for one test run.
type dirs map[string]string

func (d dirs) of(t *testing.T, mod string) string {
	t.Helper()
	if mod == profiles.Here {
		return filepath.Join("..", "..")
	}
	if _, ok := d[mod]; !ok {
		d[mod] = modsource.Dir(t, mod)
	}
	return d[mod]
}

// hold is "" when src holds in its module, or what does not.
func hold(t *testing.T, d dirs, module string, src profiles.Source) string {
	t.Helper()
	if src.Module != "" {
		module = src.Module
	}
	text, ok := modsource.Text(t, d.of(t, module), src.File)
	switch {
	case !ok && src.Absent && len(src.Evidence) == 0:
		return ""
	case !ok:
		return fmt.Sprintf("%s: %s does not exist", module, src.File)
	case src.Absent && len(src.Evidence) == 0:
		return fmt.Sprintf("%s: %s exists", module, src.File)
	}
	for _, e := range src.Evidence {
		matched := regexp.MustCompile(e).MatchString(text)
		if matched == src.Absent {
			return fmt.Sprintf("%s: %s: %q matches: %t", module, src.File, e, matched)
		}
	}
	return ""
}

// TestProfilesHoldInTheirSource downloads every module a profile cites and
// checks each fact's evidence there: a fact that no longer holds in the
// provider's code fails here, naming the file.
func TestProfilesHoldInTheirSource(t *testing.T) {
	d := dirs{}
	for _, p := range profiles.All() {
		t.Run(p.Key(), func(t *testing.T) {
			for name, f := range facts(p) {
				for _, src := range f.Sources() {
					if why := hold(t, d, p.Module, src); why != "" {
						t.Errorf("%s %s: %s", p.Key(), name, why)
					}
				}
			}
		})
	}
}

// TestEveryFactNamesItsSource: a fact without a source, or a source
// without a file or evidence to hold it, is an unchecked claim.
func TestEveryFactNamesItsSource(t *testing.T) {
	for _, p := range profiles.All() {
		if p.Module == "" || (p.Module != profiles.Here && !strings.Contains(p.Module, "@v")) {
			t.Errorf("%s: Module %q is not path@version", p.Key(), p.Module)
		}
		for name, f := range facts(p) {
			if len(f.Sources()) == 0 {
				t.Errorf("%s %s: no source", p.Key(), name)
			}
			for _, src := range f.Sources() {
				if src.File == "" || (len(src.Evidence) == 0 && !src.Absent) {
					t.Errorf("%s %s: a source needs a file and evidence (or Absent): %+v", p.Key(), name, src)
				}
				for _, e := range src.Evidence {
					if _, err := regexp.Compile(e); err != nil {
						t.Errorf("%s %s: %v", p.Key(), name, err)
					}
				}
			}
		}
	}
}

// TestControllerNamesAreQuotedInTheirSource: each controller key, alias
// and node-IPAM name is a string literal in one of its fact's files, so a
// name cannot be typed from memory.
func TestControllerNamesAreQuotedInTheirSource(t *testing.T) {
	d := dirs{}
	for _, p := range profiles.All() {
		t.Run(p.Key(), func(t *testing.T) {
			quoted := func(f sourced, names ...string) {
				var text strings.Builder
				for _, src := range f.Sources() {
					mod := p.Module
					if src.Module != "" {
						mod = src.Module
					}
					s, _ := modsource.Text(t, d.of(t, mod), src.File)
					text.WriteString(s)
				}
				for _, n := range names {
					if n != "" && !strings.Contains(text.String(), `"`+n+`"`) {
						t.Errorf("%s: %q is not a string literal in the files its fact cites", p.Key(), n)
					}
				}
			}
			quoted(p.CCM.Controllers, p.CCM.Controllers.Value...)
			for alias, key := range p.CCM.Aliases.Value {
				quoted(p.CCM.Aliases, alias, key)
			}
			quoted(p.CCM.NodeIPAM, p.CCM.NodeIPAM.Value)
			quoted(p.CCM.Disabled, p.CCM.Disabled.Value...)
		})
	}
}
