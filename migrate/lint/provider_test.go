package lint

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers/profiles"

	// Each registers itself and its profiles.
	"github.com/handover-sh/handover/providers/aws"
	"github.com/handover-sh/handover/providers/azure"
	"github.com/handover-sh/handover/providers/simulated"
)

// TestSimulatedProfileIsTheTable: the simulated cloud's profile (read from
// handover's own manager) and the lint's table of that manager agree, so
// judging the simulated manager by its profile would change nothing.
func TestSimulatedProfileIsTheTable(t *testing.T) {
	for _, p := range profiles.All() {
		if p.Provider != simulated.Name {
			continue
		}
		table, err := LookupManager(lmconfig.CCM, p.Minor+".0")
		if err != nil {
			t.Fatalf("%s: %v", p.Key(), err)
		}
		got := fromProfile(p, table.Default)
		if !slices.Equal(slices.Sorted(slices.Values(got.Controllers)), slices.Sorted(slices.Values(table.Controllers))) {
			t.Errorf("%s: controllers %v, the table says %v", p.Key(), got.Controllers, table.Controllers)
		}
		if !maps.Equal(got.Aliases, table.Aliases) || !maps.Equal(got.Names, table.Names) || !slices.Equal(got.Disabled, table.Disabled) || got.IgnoresLeaderMigration {
			t.Errorf("%s: aliases %v names %v ignores %t; the table: %v %v", p.Key(), got.Aliases, got.Names, got.IgnoresLeaderMigration, table.Aliases, table.Names)
		}
	}
}

// fakeProfile is a provider whose manager has no leader-migration filter,
// as cloud-provider-azure's (its real profile is tested with the rest).
func fakeProfile(minor string) profiles.Profile {
	var p profiles.Profile
	p.Provider, p.Minor, p.Module = "nofilter", minor, "example.com/ccm@v1.0.0"
	p.CCM.Controllers.Value = []string{CloudNode, ServiceLB, NodeRoute, CloudNodeLifecycle, "node-ipam"}
	p.CCM.NodeIPAM.Value = "node-ipam"
	return p
}

// A manager without the filter, given --enable-leader-migration: an error
// and a predicted double run beside an in-tree kube-controller-manager; a
// warning and no double run when it starts after the switch.
func TestAManagerWithoutTheFilterIsJudgedByWhenItStarts(t *testing.T) {
	table, _ := LookupManager(lmconfig.KCM, "1.30.0")
	m := fromProfile(fakeProfile("1.30"), table.Default)
	if !m.IgnoresLeaderMigration || m.Name(NodeIPAM) != "node-ipam" || m.Canonical("node-ipam") != NodeIPAM {
		t.Fatalf("manager from the profile: %+v", m)
	}
	ccm := Side{Component: lmconfig.CCM, Version: "v1.30.4", LeaderMigration: true, Config: lmconfig.New(lmconfig.Wildcard, Migratable...), ConfigPath: "lm.yaml"}
	if fs := lintIgnored(ccm, m); len(fs) != 1 || fs[0].Severity != Error || !strings.Contains(fs[0].Problem, "they run in both") {
		t.Errorf("beside the in-tree managers: %v", fs)
	}
	ccm.AfterSwitch = true
	if fs := lintIgnored(ccm, m); len(fs) != 1 || fs[0].Severity != Warning || !strings.Contains(fs[0].Problem, "nothing runs twice") {
		t.Errorf("after the switch: %v", fs)
	}
	if fs := lintIgnored(Side{Component: lmconfig.CCM, Version: "v1.30.4"}, m); len(fs) != 0 {
		t.Errorf("judged without --enable-leader-migration: %v", fs)
	}
}

// TestProvidersAreJudgedByTheirProfiles: the same files and flags, judged
// for the azure manager (no filter: an error and a predicted double run
// beside the in-tree kube-controller-manager; a warning and none when it
// starts after the switch) and for aws's and upstream's (the lock holds).
func TestProvidersAreJudgedByTheirProfiles(t *testing.T) {
	cfg := lmconfig.New(lmconfig.Wildcard, Migratable...)
	kcm := Side{Component: lmconfig.KCM, Version: "v1.30.14", LeaderMigration: true, CloudProvider: "in-tree", Config: cfg, ConfigPath: "lm.yaml"}
	for _, tc := range []struct {
		provider      string
		after, double bool
		errors        int
	}{
		{azure.Name, false, true, 1}, {azure.Name, true, false, 0},
		{aws.Name, false, false, 0}, {"", false, false, 0}, {"", true, false, 0},
	} {
		ccm := Side{Component: lmconfig.CCM, Version: "v1.31.4", LeaderMigration: true, Config: cfg, ConfigPath: "lm.yaml", Provider: tc.provider, AfterSwitch: tc.after}
		fs := Lint(kcm, ccm)
		judged := slices.ContainsFunc(fs, func(f Finding) bool { return strings.Contains(f.Problem, "has no leader-migration filter") })
		p := Predict(Migratable, kcm, ccm)
		if judged != (tc.provider == azure.Name) || (len(p.Both) == len(Migratable)) != tc.double || len(p.Both) > 0 && !tc.double || fs.Errors() != tc.errors || len(p.Unknown) != 0 {
			t.Errorf("provider %q after %t: prediction %v, findings:\n%s", tc.provider, tc.after, p, fs)
		}
	}
	// Past the minors the lint has kube-controller-manager facts for, the
	// profile still says what the manager does.
	late := Side{Component: lmconfig.CCM, Version: "v1.34.0", LeaderMigration: true, Provider: azure.Name}
	if fs := Lint(late); !strings.Contains(fs.String(), "has no leader-migration filter") {
		t.Errorf("azure 1.34: %s", fs)
	}
}

// A file both managers read may list the cloud-controller-manager's own
// cloud-node controller: kube-controller-manager has none and its filter
// never compares the entry, which the managers run safely — a warning, not
// an error. A name no manager has stays an error.
func TestTheOtherManagersControllerIsNoError(t *testing.T) {
	for v, cloudNode := range map[string]string{"v1.30.14": CloudNode, "v1.27.4": "cloud-node"} {
		m, _ := LookupManager(lmconfig.KCM, v)
		names := append(each(Migratable, m.Name), cloudNode)
		cfg := lmconfig.New(lmconfig.Wildcard, names...)
		kcm := Side{Component: lmconfig.KCM, Version: v, LeaderMigration: true, CloudProvider: "in-tree", Config: cfg, ConfigPath: "lm.yaml"}
		fs := Lint(kcm)
		if fs.Errors() != 0 || !strings.Contains(fs.String(), "has no "+cloudNode) {
			t.Errorf("%s: %s", v, fs)
		}
		cfg = lmconfig.New(lmconfig.Wildcard, append(each(Migratable, m.Name), "cloud-nod-controller")...)
		kcm.Config = cfg
		if fs := Lint(kcm); fs.Errors() != 1 {
			t.Errorf("%s: a typo: %s", v, fs)
		}
	}
}

// A manager without the filter still reads and validates the file: what
// makes the managers refuse it is an error for it too.
func TestAManagerWithoutTheFilterStillChecksTheFile(t *testing.T) {
	cfg := lmconfig.New(lmconfig.Wildcard, Migratable...)
	cfg.LeaderName = ""
	cfg.ControllerLeaders[0].Component = ""
	ccm := Side{Component: lmconfig.CCM, Version: "v1.31.4", LeaderMigration: true, Config: cfg, ConfigPath: "lm.yaml", Provider: azure.Name, AfterSwitch: true}
	fs := Lint(ccm)
	if fs.Errors() != 2 || !strings.Contains(fs.String(), "leaderName") || !strings.Contains(fs.String(), "controllerLeaders[0]") {
		t.Errorf("findings:\n%s", fs)
	}
}

// Azure's manager starts its node IPAM whenever --allocate-node-cidrs is
// set: beside a kube-controller-manager that allocates too, a warning.
func TestTwoNodeIPAMAllocatorsAreWarnedOf(t *testing.T) {
	kcm := Side{Component: lmconfig.KCM, Version: "v1.30.14", CloudProvider: "external", AllocateNodeCIDRs: true}
	for _, tc := range []struct {
		provider string
		allocate bool
		warned   bool
	}{
		{azure.Name, true, true}, {azure.Name, false, false}, {"", true, false},
	} {
		ccm := Side{Component: lmconfig.CCM, Version: "v1.31.4", Provider: tc.provider, AllocateNodeCIDRs: tc.allocate, AfterSwitch: true}
		fs := Lint(kcm, ccm)
		warned := strings.Contains(fs.String(), "two node IPAM allocators")
		if warned != tc.warned {
			t.Errorf("provider %q --allocate-node-cidrs=%t: warned %t, want %t:\n%s", tc.provider, tc.allocate, warned, tc.warned, fs)
		}
	}
}
