package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

func TestPredict(t *testing.T) {
	n1 := Side{Component: lmconfig.KCM, Version: "v1.31.4", AllocateNodeCIDRs: true}
	builtIn := func(s Side) Side { s.Config, s.ConfigPath = nil, ""; return s }
	verbatim := func(component string) *lmconfig.Config {
		return lmconfig.New(component, "route", "service", "cloud-node-lifecycle")
	}
	ccmOther := lmconfig.New(lmconfig.CCM, canonical...)
	ccmOther.LeaderName = "other"
	for _, tc := range []struct {
		name           string
		sides          []Side
		both, orphaned []string
	}{
		{"canonical names", []Side{kcmN(lmconfig.New(lmconfig.KCM, canonical...)), ccmN1(lmconfig.New(lmconfig.CCM, canonical...)), n1}, nil, nil},
		// The task doc as printed: aliases match nothing, every
		// controller runs on each manager's main lease.
		{"task doc verbatim", []Side{kcmN(verbatim(lmconfig.KCM)), ccmN1(verbatim(lmconfig.CCM)), n1}, canonical, nil},
		// The built-in default names route-controller and
		// service-controller, which 1.28 and later do not have.
		{"built-in default", []Side{builtIn(kcmN(nil)), builtIn(ccmN1(nil)), n1}, []string{ServiceLB, NodeRoute}, nil},
		{"leader names differ", []Side{kcmN(lmconfig.New(lmconfig.KCM, canonical...)), ccmN1(ccmOther), n1}, canonical, nil},
		{"ccm gives them to kcm", []Side{kcmN(lmconfig.New(lmconfig.KCM, canonical...)), ccmN1(lmconfig.New(lmconfig.KCM, canonical...)), n1}, nil, canonical},
		{"ccm without leader migration", []Side{kcmN(lmconfig.New(lmconfig.KCM, canonical...)), func() Side { s := ccmN1(nil); s.LeaderMigration = false; return s }(), n1}, canonical, nil},
		{"ccm turns service off", []Side{kcmN(lmconfig.New(lmconfig.KCM, canonical...)), func() Side {
			s := ccmN1(lmconfig.New(lmconfig.CCM, canonical...))
			s.Args = []string{"--controllers=*,-service"}
			return s
		}(), n1}, nil, []string{ServiceLB}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Predict(canonical, tc.sides...)
			if !slices.Equal(p.Both, tc.both) || !slices.Equal(p.Orphaned, tc.orphaned) || len(p.Unknown) > 0 {
				t.Errorf("got both %v orphaned %v unknown %v; want both %v orphaned %v", p.Both, p.Orphaned, p.Unknown, tc.both, tc.orphaned)
			}
		})
	}
	if p := Predict(canonical, Side{Component: lmconfig.KCM, Version: "v1.20.0", CloudProvider: "kind"}); len(p.Unknown) != 3 {
		t.Errorf("a version without facts: want every controller unknown, got %+v", p)
	}
}

// TestPredictNodeIPAM: the N+1 kube-controller-manager shares the main
// lease with the N ones, so it runs node IPAM in turn with them, but both
// run it beside a cloud-controller-manager that migrates it.
func TestPredictNodeIPAM(t *testing.T) {
	all := append(slices.Clone(canonical), NodeIPAM)
	kcm := kcmN(lmconfig.New(lmconfig.KCM, all...))
	kcm.AllocateNodeCIDRs = true
	ccm := ccmN1(lmconfig.New(lmconfig.CCM, all...))
	ccm.AllocateNodeCIDRs, ccm.Controllers = true, "*,node-ipam-controller"
	n1 := Side{Component: lmconfig.KCM, Version: "v1.31.4", AllocateNodeCIDRs: true}
	if p := Predict([]string{NodeIPAM}, kcm, ccm, n1); !slices.Equal(p.Both, []string{NodeIPAM}) {
		t.Errorf("N+1 runs node IPAM on its main lease: want it run in both, got %+v", p)
	}
	n1.Controllers = "*,-node-ipam-controller"
	if p := Predict([]string{NodeIPAM}, kcm, ccm, n1); len(p.Both)+len(p.Orphaned) > 0 {
		t.Errorf("N+1 without node IPAM: want nothing, got %+v", p)
	}
}

// Before 1.28 the managers knew only the short names, the task doc's: its
// configuration is right on 1.26 → 1.27 and wrong from 1.28 on; across
// 1.27 → 1.28 each side must use its own names.
func TestShortNameEra(t *testing.T) {
	side := func(component, version string, cfg *lmconfig.Config) Side {
		s := Side{Component: component, Version: version, LeaderMigration: true, ConfigPath: component + ".yaml", Config: cfg}
		if component == lmconfig.KCM {
			s.CloudProvider = "kind"
		}
		if cfg == nil {
			s.ConfigPath = ""
		}
		return s
	}
	short := func(component string) *lmconfig.Config {
		return lmconfig.New(component, "route", "service", "cloud-node-lifecycle")
	}
	for _, tc := range []struct {
		name   string
		kcm    Side
		ccm    Side
		errors []string // substrings of the errors, in order
		both   []string
	}{
		{"task doc on 1.26 → 1.27", side(lmconfig.KCM, "v1.26.13", short(lmconfig.KCM)), side(lmconfig.CCM, "v1.27.4", short(lmconfig.CCM)), nil, nil},
		{"built-in default on 1.26 → 1.27", side(lmconfig.KCM, "v1.26.13", nil), side(lmconfig.CCM, "v1.27.4", nil), nil, nil},
		{"each side its own names, 1.27 → 1.28", side(lmconfig.KCM, "v1.27.4", short(lmconfig.KCM)), side(lmconfig.CCM, "v1.28.15", lmconfig.New(lmconfig.CCM, canonical...)), nil, nil},
		{"short names on 1.28's side", side(lmconfig.KCM, "v1.27.4", short(lmconfig.KCM)), side(lmconfig.CCM, "v1.28.15", short(lmconfig.CCM)),
			[]string{`"route" is an alias`, `"service" is an alias`, `"cloud-node-lifecycle" is an alias`, "missing from cloud-controller-manager's configuration (as node-route-controller)"}, canonical},
		{"canonical names on 1.27's side", side(lmconfig.KCM, "v1.27.4", lmconfig.New(lmconfig.KCM, canonical...)), side(lmconfig.CCM, "v1.28.15", lmconfig.New(lmconfig.CCM, canonical...)),
			[]string{`"service-lb-controller" is not a controller of kube-controller-manager v1.27.4`}, canonical},
		{"built-in default on 1.27 → 1.28", side(lmconfig.KCM, "v1.27.4", nil), side(lmconfig.CCM, "v1.28.15", nil),
			[]string{"the built-in default configuration names route-controller, service-controller"}, []string{ServiceLB, NodeRoute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := Lint(tc.kcm, tc.ccm)
			var errs []string
			for _, f := range fs {
				if f.Severity == Error {
					errs = append(errs, f.String())
				}
			}
			for _, want := range tc.errors {
				if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, want) }) {
					t.Errorf("no error says %q:\n%s", want, fs)
				}
			}
			if len(tc.errors) == 0 && len(errs) > 0 {
				t.Errorf("want no errors, got\n%s", fs)
			}
			if p := Predict(canonical, tc.kcm, tc.ccm); !slices.Equal(p.Both, tc.both) || len(p.Orphaned)+len(p.Unknown) > 0 {
				t.Errorf("predicted %+v, want in both %v", p, tc.both)
			}
		})
	}
}
