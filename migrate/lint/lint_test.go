package lint

import (
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
		{"ccm without leader migration", []Side{kcm, {Component: lmconfig.CCM, Version: "v1.31.4"}},
			"cloud-controller-manager --enable-leader-migration", "both managers run every cloud controller"},
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
