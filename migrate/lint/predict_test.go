package lint

import (
	"slices"
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
