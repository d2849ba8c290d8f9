package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

var canonical = []string{ServiceLB, NodeRoute, CloudNodeLifecycle}

func kcmN(cfg *lmconfig.Config) Side {
	return Side{Component: lmconfig.KCM, Version: "v1.30.14", LeaderMigration: true, ConfigPath: "kcm.yaml", Config: cfg, CloudProvider: "kind"}
}

func ccmN1(cfg *lmconfig.Config) Side {
	return Side{Component: lmconfig.CCM, Version: "v1.31.4", LeaderMigration: true, ConfigPath: "ccm.yaml", Config: cfg}
}

func TestLintCleanTaskDoc(t *testing.T) {
	fs := Lint(kcmN(lmconfig.New(lmconfig.KCM, canonical...)), ccmN1(lmconfig.New(lmconfig.CCM, canonical...)),
		Side{Component: lmconfig.KCM, Version: "v1.31.4"})
	if len(fs) != 0 {
		t.Fatalf("clean task-doc migration: want no findings, got\n%s", fs)
	}
}

// kcmNoLM is a version-N kube-controller-manager with the in-tree provider
// and no leader migration.
var kcmNoLM = Side{Component: lmconfig.KCM, Version: "v1.30.14", CloudProvider: "kind"}

// KubeOne's way needs no leader migration: --controllers keeps the cloud
// loops out of the in-tree kube-controller-manager (aliases, as the
// managers translate them) while the cloud-controller-manager runs them.
func TestLintCleanControllersFlag(t *testing.T) {
	for _, v := range []string{"v1.26.15", "v1.30.14"} {
		k := args(kcmNoLM, "--controllers=*,bootstrapsigner,tokencleaner,-cloud-node-lifecycle,-route,-service")
		k.Version = v
		if fs := Lint(k, Side{Component: lmconfig.CCM, Version: v}); len(fs) != 0 {
			t.Errorf("%s: want no findings, got\n%s", v, fs)
		}
		if p := Predict(canonical, k, Side{Component: lmconfig.CCM, Version: v}); len(p.Both)+len(p.Orphaned)+len(p.Unknown) != 0 {
			t.Errorf("%s: want every controller in one manager, got %s", v, p)
		}
	}
}

func TestLintFires(t *testing.T) {
	with := func(f func(c *lmconfig.Config)) *lmconfig.Config {
		c := lmconfig.New(lmconfig.CCM, canonical...)
		f(c)
		return c
	}
	kcm := kcmN(lmconfig.New(lmconfig.KCM, canonical...))
	for _, tc := range []struct {
		name  string
		sides []Side
		where string // the field the error must name
		says  string
	}{
		{"task-doc alias names", []Side{kcmN(lmconfig.New(lmconfig.KCM, "route", "service", "cloud-node-lifecycle"))},
			"kcm.yaml: controllerLeaders[0].name", "use name: node-route-controller"},
		{"unknown controller", []Side{kcm, ccmN1(with(func(c *lmconfig.Config) { c.ControllerLeaders[1].Name = "service-controler" }))},
			"ccm.yaml: controllerLeaders[1].name", "not a controller of cloud-controller-manager"},
		{"component typo", []Side{kcm, ccmN1(with(func(c *lmconfig.Config) { c.ControllerLeaders[0].Component = "cloud-controler-manager" }))},
			"ccm.yaml: controllerLeaders[0].component", "is not a component"},
		{"ccm config gives controllers to kcm", []Side{kcm, ccmN1(lmconfig.New(lmconfig.KCM, canonical...))},
			"ccm.yaml: controllerLeaders[0].component", "nothing runs it"},
		{"leaderName differs", []Side{kcm, ccmN1(with(func(c *lmconfig.Config) { c.LeaderName = "other" }))},
			"ccm.yaml: leaderName", "different migration leases"},
		{"empty leaderName", []Side{ccmN1(with(func(c *lmconfig.Config) { c.LeaderName = "" }))},
			"ccm.yaml: leaderName", "is empty"},
		{"endpoints lock", []Side{ccmN1(with(func(c *lmconfig.Config) { c.ResourceLock = "endpoints" }))},
			"ccm.yaml: resourceLock", "removed"},
		{"duplicate entry, another component", []Side{ccmN1(with(func(c *lmconfig.Config) {
			c.ControllerLeaders[2] = lmconfig.ControllerLeader{Name: ServiceLB, Component: lmconfig.KCM}
		}))}, "ccm.yaml: controllerLeaders[2].name", "keeps the last entry"},
		{"controller missing on one side", []Side{kcm, ccmN1(lmconfig.New(lmconfig.CCM, ServiceLB, NodeRoute))},
			"kcm.yaml: controllerLeaders[2].name", "it runs in both"},
		{"controller in neither configuration", []Side{kcmN(lmconfig.New(lmconfig.KCM, ServiceLB, NodeRoute)), ccmN1(lmconfig.New(lmconfig.CCM, ServiceLB, NodeRoute))},
			"kcm.yaml: controllerLeaders", "cloud-node-lifecycle-controller is in neither configuration"},
		{"ccm without leader migration", []Side{kcm, {Component: lmconfig.CCM, Version: "v1.31.4"}},
			"cloud-controller-manager --enable-leader-migration", "both start service-lb-controller, node-route-controller, cloud-node-lifecycle-controller"},
		{"kcm --controllers keeps one cloud loop, no leader migration", []Side{args(kcmNoLM, "--controllers=*,bootstrapsigner,tokencleaner,-route,-service"), {Component: lmconfig.CCM, Version: "v1.30.14"}},
			"kube-controller-manager --enable-leader-migration", "both start cloud-node-lifecycle-controller: both"},
		{"N+1 kcm with leader migration", []Side{{Component: lmconfig.KCM, Version: "v1.31.4", LeaderMigration: true, ConfigPath: "kcm.yaml", Config: lmconfig.New(lmconfig.KCM, canonical...)}},
			"kube-controller-manager --enable-leader-migration", "MUST NOT"},
		{"removed feature gate", []Side{{Component: lmconfig.KCM, Version: "v1.30.14", CloudProvider: "kind", FeatureGates: "ControllerManagerLeaderMigration=true"}},
			"kube-controller-manager --feature-gates", "removed"},
		{"default configuration", []Side{{Component: lmconfig.KCM, Version: "v1.30.14", CloudProvider: "kind", LeaderMigration: true}},
			"kube-controller-manager --leader-migration-config (unset)", "service-lb-controller and node-route-controller run under"},
		{"ccm migrates node IPAM it does not start", []Side{ccmN1(lmconfig.New(lmconfig.CCM, append(canonical, NodeIPAM)...))},
			"ccm.yaml: controllerLeaders[3].name", "--controllers=*,node-ipam-controller"},
		{"N+1 kcm runs node IPAM outside the lock", []Side{
			func() Side {
				s := ccmN1(lmconfig.New(lmconfig.CCM, append(canonical, NodeIPAM)...))
				s.Controllers, s.AllocateNodeCIDRs = "*,nodeipam", true
				return s
			}(),
			{Component: lmconfig.KCM, Version: "v1.31.4", AllocateNodeCIDRs: true}},
			"kube-controller-manager v1.31.4 --controllers", "-node-ipam-controller"},
		{"in-tree provider on 1.31", []Side{{Component: lmconfig.KCM, Version: "v1.31.4", CloudProvider: "kind"}},
			"kube-controller-manager --cloud-provider", "no in-tree cloud providers"},
		{"leader election off under leader migration", []Side{args(ccmN1(lmconfig.New(lmconfig.CCM, canonical...)), "--leader-elect=false")},
			"cloud-controller-manager v1.31.4 --leader-elect", "no lock at all"},
		{"lease not above the renew deadline", []Side{args(kcm, "--leader-elect-lease-duration=10s")},
			"kube-controller-manager v1.30.14 --leader-elect-lease-duration", "not longer than --leader-elect-renew-deadline 10s"},
		{"renew deadline within the retries' jitter", []Side{args(kcm, "--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s", "--leader-elect-retry-period=35s")},
			"kube-controller-manager v1.30.14 --leader-elect-renew-deadline", "1.2 × --leader-elect-retry-period 35s"},
		{"a lease under a second", []Side{args(kcm, "--leader-elect-lease-duration=500ms", "--leader-elect-renew-deadline=400ms", "--leader-elect-retry-period=100ms")},
			"kube-controller-manager v1.30.14 --leader-elect-lease-duration", "always expired"},
		{"cluster names differ", []Side{args(kcm, "--cluster-name=prod"), ccmN1(lmconfig.New(lmconfig.CCM, canonical...))},
			"cloud-controller-manager --cluster-name", `"kubernetes" (the default) differs from kube-controller-manager's "prod"`},
		{"routes off in the ccm only", []Side{withCIDRs(kcm), args(withCIDRs(ccmN1(lmconfig.New(lmconfig.CCM, canonical...))), "--configure-cloud-routes=false")},
			"cloud-controller-manager --configure-cloud-routes", "get no routes"},
		{"a --controllers flag turns node IPAM off where it migrates", []Side{args(withCIDRs(ccmN1(lmconfig.New(lmconfig.CCM, append(canonical, NodeIPAM)...))), "--controllers=*,-nodeipam")},
			"ccm.yaml: controllerLeaders[3].name", "does not start it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := Lint(tc.sides...)
			for _, f := range fs {
				if f.Severity == Error && f.Where == tc.where && strings.Contains(f.Problem+f.Fix, tc.says) {
					return
				}
			}
			t.Fatalf("want an error at %q saying %q, got\n%s", tc.where, tc.says, fs)
		})
	}
}

func TestLintUnknownVersionWarns(t *testing.T) {
	fs := Lint(Side{Component: lmconfig.CCM, Version: "v1.40.0", LeaderMigration: true})
	if len(fs) != 1 || fs[0].Severity != Warning || fs.Err() != nil {
		t.Fatalf("want one warning, got\n%s", fs)
	}
}

func TestEnabled(t *testing.T) {
	m, _ := LookupManager("cloud-controller-manager", "v1.31.4")
	for _, tc := range []struct {
		flag string
		name string
		want bool
	}{
		{"", ServiceLB, true}, {"", NodeIPAM, false}, {"*,node-ipam-controller", NodeIPAM, true},
		{"*,nodeipam", NodeIPAM, true}, {"*,-service", ServiceLB, false}, {"cloud-node-controller", ServiceLB, false},
	} {
		if got := m.Enabled(tc.flag, tc.name); got != tc.want {
			t.Errorf("Enabled(%q, %s) = %t", tc.flag, tc.name, got)
		}
	}
}

func args(s Side, a ...string) Side { s.Args = append(s.Args, a...); return s }

func withCIDRs(s Side) Side { s.AllocateNodeCIDRs = true; return s }

func TestElection(t *testing.T) {
	s := args(Side{}, "--leader-elect-lease-duration=60s", "--leader-elect-retry-period=5s", "--leader-elect-lease-duration=137s", "--v=2")
	e := s.Election()
	if e.Lease != 137*time.Second || e.Retry != 5*time.Second || e.RenewDeadline != 10*time.Second || !e.Elect {
		t.Errorf("election: %+v", e)
	}
	if e := args(Side{}, "--leader-elect=false").Election(); e.Elect {
		t.Error("--leader-elect=false read as true")
	}
	if fs := Lint(args(kcmN(lmconfig.New(lmconfig.KCM, canonical...)), "--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s")); len(fs) != 0 {
		t.Errorf("a long lease is no finding: %s", fs)
	}
}

// The managers' filter keeps the last entry for a name: the same component
// twice is harmless.
func TestLintDuplicateSameComponentWarns(t *testing.T) {
	c := lmconfig.New(lmconfig.CCM, append(canonical, ServiceLB)...)
	fs := Lint(ccmN1(c))
	if fs.Errors() != 0 || len(fs) != 1 || fs[0].Severity != Warning || !strings.Contains(fs[0].Problem, "harmless") {
		t.Fatalf("want one warning, got\n%s", fs)
	}
}

// Files written for both sides of the 1.28 rename of the cloud controllers
// list each controller under both names. Each manager's filter compares its
// own name and never looks the other up (migrator.go), so the other entry
// is a warning on that manager, never an error; what runs is judged on the
// entries it compares, and Predict does not see the other entries at all.
func TestLintBothSidesOfTheRename(t *testing.T) {
	short := []string{"route", "service", "cloud-node-lifecycle"}
	both := append(slices.Clone(short), canonical...)
	side := func(component, version string, names ...string) Side {
		s := Side{Component: component, Version: version, LeaderMigration: true, ConfigPath: "ccm.yaml", Config: lmconfig.New(component, names...)}
		if component == lmconfig.KCM {
			s.CloudProvider, s.ConfigPath = "kind", "kcm.yaml"
		}
		return s
	}
	without := func(names []string, drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
	}
	for _, tc := range []struct {
		name   string
		kcm    Side
		ccm    Side
		unused map[string][]string // per manager's file: the names warned as not compared
		errors []string            // substrings of the errors
		both   []string
	}{
		{"1.27 kcm, 1.28 ccm, both names each", side(lmconfig.KCM, "v1.27.4", both...), side(lmconfig.CCM, "v1.28.15", both...),
			map[string][]string{"kube-controller-manager v1.27.4": canonical, "cloud-controller-manager v1.28.15": short}, nil, nil},
		{"1.27 kcm short names, 1.28 ccm both", side(lmconfig.KCM, "v1.27.4", short...), side(lmconfig.CCM, "v1.28.15", both...),
			map[string][]string{"cloud-controller-manager v1.28.15": short}, nil, nil},
		{"1.27 kcm both, 1.28 ccm canonical names", side(lmconfig.KCM, "v1.27.4", both...), side(lmconfig.CCM, "v1.28.15", canonical...),
			map[string][]string{"kube-controller-manager v1.27.4": canonical}, nil, nil},
		{"1.26 kcm, 1.27 ccm, both names each", side(lmconfig.KCM, "v1.26.13", both...), side(lmconfig.CCM, "v1.27.4", both...),
			map[string][]string{"kube-controller-manager v1.26.13": canonical, "cloud-controller-manager v1.27.4": canonical}, nil, nil},
		{"1.30 kcm, 1.31 ccm, both names each", kcmN(lmconfig.New(lmconfig.KCM, both...)), ccmN1(lmconfig.New(lmconfig.CCM, both...)),
			map[string][]string{"kube-controller-manager v1.30.14": short, "cloud-controller-manager v1.31.4": short}, nil, nil},
		{"1.28 on both sides, both names each", side(lmconfig.KCM, "v1.28.15", both...), side(lmconfig.CCM, "v1.28.15", both...),
			map[string][]string{"kube-controller-manager v1.28.15": short, "cloud-controller-manager v1.28.15": short}, nil, nil},
		// service-lb-controller missing on the 1.28 side: its "service"
		// matches nothing there and the kube-controller-manager migrates
		// service: a double run.
		{"1.28 ccm misses service-lb-controller", side(lmconfig.KCM, "v1.27.4", both...), side(lmconfig.CCM, "v1.28.15", without(both, ServiceLB)...),
			map[string][]string{"kube-controller-manager v1.27.4": canonical, "cloud-controller-manager v1.28.15": {"route", "cloud-node-lifecycle"}},
			[]string{`ccm.yaml: controllerLeaders[1].name: "service" is an alias`, "kcm.yaml: controllerLeaders[1].name: service is migrated by kube-controller-manager but missing from cloud-controller-manager's configuration (as service-lb-controller)"},
			[]string{ServiceLB}},
		// route missing on the 1.27 side: its node-route-controller is
		// 1.28's name only.
		{"1.27 kcm misses route", side(lmconfig.KCM, "v1.27.4", without(both, "route")...), side(lmconfig.CCM, "v1.28.15", both...),
			map[string][]string{"kube-controller-manager v1.27.4": {ServiceLB, CloudNodeLifecycle}, "cloud-controller-manager v1.28.15": short},
			[]string{`kcm.yaml: controllerLeaders[3].name: "node-route-controller" is not a controller of kube-controller-manager v1.27.4`, "ccm.yaml: controllerLeaders[4].name: node-route-controller is migrated by cloud-controller-manager but missing from kube-controller-manager's configuration (as route)"},
			[]string{NodeRoute}},
		// Neither name of service on either side: each manager runs it
		// on its main lease.
		{"service in neither file", side(lmconfig.KCM, "v1.27.4", without(both, "service", ServiceLB)...), side(lmconfig.CCM, "v1.28.15", without(both, "service", ServiceLB)...),
			map[string][]string{"kube-controller-manager v1.27.4": {NodeRoute, CloudNodeLifecycle}, "cloud-controller-manager v1.28.15": {"route", "cloud-node-lifecycle"}},
			[]string{"kcm.yaml: controllerLeaders: service-lb-controller is in neither configuration (kube-controller-manager v1.27.4 names it service, cloud-controller-manager v1.28.15 names it service-lb-controller)"},
			[]string{ServiceLB}},
		// The task doc's files as printed, on 1.30 → 1.31: nothing covers
		// the controllers their short names stand for.
		{"task doc verbatim", kcmN(lmconfig.New(lmconfig.KCM, short...)), ccmN1(lmconfig.New(lmconfig.CCM, short...)), nil,
			[]string{`kcm.yaml: controllerLeaders[0].name: "route" is an alias`, `kcm.yaml: controllerLeaders[1].name: "service" is an alias`, `kcm.yaml: controllerLeaders[2].name: "cloud-node-lifecycle" is an alias`,
				`ccm.yaml: controllerLeaders[0].name: "route" is an alias`, `ccm.yaml: controllerLeaders[1].name: "service" is an alias`, `ccm.yaml: controllerLeaders[2].name: "cloud-node-lifecycle" is an alias`},
			canonical},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := Lint(tc.kcm, tc.ccm)
			var errs []string
			warned := map[string][]string{}
			for _, f := range fs {
				if f.Severity == Error {
					errs = append(errs, f.String())
					continue
				}
				var name, manager string
				if _, err := fmt.Sscanf(f.Problem, "%q is not a name", &name); err != nil {
					t.Errorf("unexpected warning:\n%s", f)
					continue
				}
				manager, _, _ = strings.Cut(strings.TrimPrefix(f.Problem, strconv.Quote(name)+" is not a name "), "'s leader-migration filter")
				warned[manager] = append(warned[manager], name)
			}
			for _, want := range tc.errors {
				if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, want) }) {
					t.Errorf("no error says %q:\n%s", want, fs)
				}
			}
			if len(errs) != len(tc.errors) {
				t.Errorf("want %d errors, got\n%s", len(tc.errors), fs)
			}
			if len(warned) != len(tc.unused) {
				t.Errorf("warned %v, want %v", warned, tc.unused)
			}
			for manager, names := range tc.unused {
				if !slices.Equal(warned[manager], names) {
					t.Errorf("%s: warned %v, want %v:\n%s", manager, warned[manager], names, fs)
				}
			}
			p := Predict(canonical, tc.kcm, tc.ccm)
			if !slices.Equal(p.Both, tc.both) || len(p.Orphaned)+len(p.Unknown) > 0 {
				t.Errorf("predicted %+v, want in both %v", p, tc.both)
			}
			// An entry a manager does not compare changes nothing in
			// what runs: the prediction without them is the same.
			if q := Predict(canonical, compares(tc.kcm), compares(tc.ccm)); !slices.Equal(p.Both, q.Both) || !slices.Equal(p.Orphaned, q.Orphaned) {
				t.Errorf("without the entries not compared: predicted %+v, with them %+v", q, p)
			}
		})
	}
}

// compares is the side with only the entries its manager's filter compares.
func compares(s Side) Side {
	m, _ := LookupManager(s.Component, s.Version)
	s.Config = s.Config.Clone()
	s.Config.ControllerLeaders = slices.DeleteFunc(s.Config.ControllerLeaders, func(l lmconfig.ControllerLeader) bool { return !m.Runs(l.Name) })
	return s
}

// An entry not compared that gives its controller to another component
// than the entry compared: still a warning on this manager (the compared
// one decides), saying the file reads otherwise across the rename.
func TestLintUnusedEntryDisagrees(t *testing.T) {
	c := lmconfig.New(lmconfig.KCM, canonical...)
	c.ControllerLeaders = append(c.ControllerLeaders, lmconfig.ControllerLeader{Name: "route", Component: lmconfig.CCM})
	fs := Lint(kcmN(c))
	if fs.Errors() != 0 || len(fs) != 1 || !strings.Contains(fs[0].Problem, `not to "cloud-controller-manager" as this entry says`) ||
		fs[0].Where != "kcm.yaml: controllerLeaders[3].name" || !strings.Contains(fs[0].Problem, "kube-controller-manager v1.30.14") {
		t.Fatalf("want one warning on the unused entry, got\n%s", fs)
	}
}

// What an entry the filter never compares says about its component changes
// nothing on that manager; only an empty component, which the managers'
// check refuses in every entry, is an error there.
func TestLintUnusedEntryComponent(t *testing.T) {
	for _, tc := range []struct {
		component string
		errors    int
	}{{lmconfig.KCM, 0}, {"cloud-controler-manager", 0}, {"", 1}} {
		c := lmconfig.New(lmconfig.CCM, append(slices.Clone(canonical), "service")...)
		c.ControllerLeaders[3].Component = tc.component
		fs := Lint(ccmN1(c))
		if fs.Errors() != tc.errors || len(fs) != 1+tc.errors || fs[0].Severity != Warning {
			t.Errorf("component %q on an entry not compared: want a warning and %d error(s), got\n%s", tc.component, tc.errors, fs)
		}
	}
}

// The built-in default fits the managers of 1.26 and 1.27; from 1.28 two of
// its names match nothing, and what they stand for stays on the main lease.
func TestDefaultGaps(t *testing.T) {
	for _, tc := range []struct {
		side             Side
		missing, outside []string
	}{
		{Side{Component: lmconfig.KCM, Version: "v1.26.13"}, nil, nil},
		{Side{Component: lmconfig.CCM, Version: "v1.27.4"}, nil, nil},
		{Side{Component: lmconfig.CCM, Version: "v1.28.15"}, []string{"route-controller", "service-controller"}, []string{ServiceLB, NodeRoute}},
		{Side{Component: lmconfig.KCM, Version: "v1.30.14"}, []string{"route-controller", "service-controller"}, []string{ServiceLB, NodeRoute}},
	} {
		missing, outside, err := DefaultGaps(tc.side)
		if err != nil || !slices.Equal(missing, tc.missing) || !slices.Equal(outside, tc.outside) {
			t.Errorf("%s %s: missing %v, outside %v (%v), want %v, %v", tc.side.Component, tc.side.Version, missing, outside, err, tc.missing, tc.outside)
		}
	}
	if _, _, err := DefaultGaps(Side{Component: lmconfig.KCM, Version: "v1.20.0"}); err == nil {
		t.Error("no facts for 1.20, and no error")
	}
}
