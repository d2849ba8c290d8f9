package lint

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers/profiles"
)

// TestSimulatedProfileIsTheTable: the simulated cloud's profile (read from
// handover's own manager) and the lint's table of that manager agree, so
// judging the simulated manager by its profile would change nothing.
func TestSimulatedProfileIsTheTable(t *testing.T) {
	for _, p := range profiles.All() {
		if p.Provider != profiles.Simulated {
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
		if !maps.Equal(got.Aliases, table.Aliases) || !maps.Equal(got.Names, table.Names) || got.IgnoresLeaderMigration {
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

func TestAManagerWithoutTheFilterIsWarnedAndPredicted(t *testing.T) {
	table, _ := LookupManager(lmconfig.KCM, "1.30.0")
	m := fromProfile(fakeProfile("1.30"), table.Default)
	if !m.IgnoresLeaderMigration || m.Name(NodeIPAM) != "node-ipam" || m.Canonical("node-ipam") != NodeIPAM {
		t.Fatalf("manager from the profile: %+v", m)
	}
	kcm := Side{Component: lmconfig.KCM, Version: "v1.30.14", LeaderMigration: true, CloudProvider: "in-tree", Config: lmconfig.New(lmconfig.Wildcard, Migratable...), ConfigPath: "lm.yaml"}
	ccm := Side{Component: lmconfig.CCM, Version: "v1.30.4", LeaderMigration: true, Config: kcm.Config, ConfigPath: "lm.yaml"}
	// The warning and the prediction come from the manager; the side
	// reaches it through its provider.
	fs := lintIgnored(ccm, m)
	if len(fs) != 1 || fs[0].Severity != Warning || !strings.Contains(fs[0].Problem, "ignores them") {
		t.Fatalf("findings: %v", fs)
	}
	if fs := lintIgnored(Side{Component: lmconfig.CCM, Version: "v1.30.4"}, m); len(fs) != 0 {
		t.Errorf("warned without --enable-leader-migration: %v", fs)
	}
}

// TestProvidersAreJudgedByTheirProfiles: the same files and flags, judged
// for the azure manager (no filter: warned, and predicted to run the
// migrated controllers beside the in-tree kube-controller-manager) and
// for aws's (upstream's app: the lock holds).
func TestProvidersAreJudgedByTheirProfiles(t *testing.T) {
	cfg := lmconfig.New(lmconfig.Wildcard, Migratable...)
	kcm := Side{Component: lmconfig.KCM, Version: "v1.30.14", LeaderMigration: true, CloudProvider: "in-tree", Config: cfg, ConfigPath: "lm.yaml"}
	for provider, double := range map[string]bool{profiles.Azure: true, profiles.AWS: false, "": false} {
		ccm := Side{Component: lmconfig.CCM, Version: "v1.31.4", LeaderMigration: true, Config: cfg, ConfigPath: "lm.yaml", Provider: provider}
		fs := Lint(kcm, ccm)
		warned := slices.ContainsFunc(fs, func(f Finding) bool { return strings.Contains(f.Problem, "has no leader-migration filter") })
		p := Predict(Migratable, kcm, ccm)
		if warned != double || (len(p.Both) == len(Migratable)) != double || fs.Errors() != 0 || len(p.Unknown) != 0 {
			t.Errorf("provider %q: warned %t, prediction %v, findings:\n%s", provider, warned, p, fs)
		}
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
