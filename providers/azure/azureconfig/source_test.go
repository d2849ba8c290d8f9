package azureconfig

import (
	"regexp"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
)

// TestFieldsHoldToTheirSource: every field handover knows is declared in
// each release's Config (or a struct it embeds) with its JSON name and
// Go type, so a value handover accepts is one the manager accepts.
func TestFieldsHoldToTheirSource(t *testing.T) {
	for code, srcs := range releases {
		t.Run(code, func(t *testing.T) {
			var all strings.Builder
			for _, s := range srcs {
				text, ok := modsource.Text(t, modsource.Dir(t, s.module), s.file)
				if !ok {
					t.Fatalf("%s has no %s", s.module, s.file)
				}
				all.WriteString(text)
			}
			for _, f := range fields {
				goName := f.goName
				if goName == "" {
					goName = strings.ToUpper(f.name[:1]) + f.name[1:]
				}
				decl := `(?m)^\s*` + goName + `\s+` + regexp.QuoteMeta(f.typ) + "\\s+`json:\"" + f.name + `[,"]`
				if !regexp.MustCompile(decl).MatchString(all.String()) {
					t.Errorf("%s %s: not declared so in %v", f.name, f.typ, srcs)
				}
			}
		})
	}
}

// TestTheDefaultSKUHoldsToItsSource: an empty loadBalancerSku is basic in
// tree (nothing sets it) and standard in the cloud-controller-manager
// (setLBDefaults); both compare it with EqualFold.
func TestTheDefaultSKUHoldsToItsSource(t *testing.T) {
	read := func(mod, file string) string {
		text, ok := modsource.Text(t, modsource.Dir(t, mod), file)
		if !ok {
			t.Fatalf("%s has no %s", mod, file)
		}
		return text
	}
	legacy, ccm := read("k8s.io/legacy-cloud-providers@v0.29.15", "azure"), read("sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/provider")
	for _, c := range []struct {
		text, re string
		want     bool
	}{
		{legacy, `strings\.EqualFold\(az\.LoadBalancerSku, loadBalancerSkuStandard\)`, true},
		{legacy, `LoadBalancerSku = `, false},
		{ccm, `strings\.EqualFold\(az\.LoadBalancerSku, consts\.LoadBalancerSkuStandard\)`, true},
		{ccm, `if config\.LoadBalancerSku == "" \{\s*config\.LoadBalancerSku = consts\.LoadBalancerSkuStandard`, true},
	} {
		if got := regexp.MustCompile(c.re).MatchString(c.text); got != c.want {
			t.Errorf("%s: found %v, want %v", c.re, got, c.want)
		}
	}
	if SKU(File{}, true) != "basic" || SKU(File{}, false) != "standard" {
		t.Error("SKU does not say what the source does")
	}
}
