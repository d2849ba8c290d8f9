package lint

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// finding is the one finding at where, or a zero Finding.
func finding(fs Findings, where string) Finding {
	for _, f := range fs {
		if f.Where == where {
			return f
		}
	}
	return Finding{}
}

// wantFinding checks that fs has a finding of severity sev at where saying
// says, or, with sev "", none at where.
func wantFinding(t *testing.T, fs Findings, sev Severity, where, says string) {
	t.Helper()
	f := finding(fs, where)
	switch {
	case sev == "" && f.Where != "":
		t.Errorf("want no finding at %q, got\n%s", where, fs)
	case sev != "" && (f.Severity != sev || !strings.Contains(f.Problem+f.Fix, says)):
		t.Errorf("want a %s at %q saying %q, got\n%s", sev, where, says, fs)
	}
}

// The gate went GA (locked to true) in 1.24 and was removed in 1.27: 1.26
// runs with =true, refuses =false; 1.27 on refuses it whatever its value.
func TestFeatureGateByVersion(t *testing.T) {
	const where = "kube-controller-manager --feature-gates"
	for _, tc := range []struct {
		version, gates string
		args           []string
		sev            Severity
		says           string
	}{
		{"v1.26.13", "ControllerManagerLeaderMigration=true", nil, Warning, "accepted by kube-controller-manager v1.26.13"},
		{"v1.26.13", "", []string{"--feature-gates=ControllerManagerLeaderMigration=true"}, Warning, "1.27 removed the gate"},
		{"v1.26.13", " ControllerManagerLeaderMigration = True ", nil, Warning, "changes nothing"},
		{"v1.26.13", "ControllerManagerLeaderMigration=false", nil, Error, "refuses to set it to false"},
		{"v1.26.13", "ControllerManagerLeaderMigration=false,ControllerManagerLeaderMigration=true", nil, Warning, "accepted"},
		{"v1.26.13", "ControllerManagerLeaderMigration", nil, Error, "is not true or false"},
		{"v1.27.4", "ControllerManagerLeaderMigration=true", nil, Error, "refuses an unrecognized feature gate"},
		{"v1.31.4", "ControllerManagerLeaderMigration=false", nil, Error, "removed in 1.27"},
		{"v1.40.0", "ControllerManagerLeaderMigration=true", nil, Error, "removed in 1.27"},
		// A later --feature-gates adds to the gates before it.
		{"v1.27.4", "ControllerManagerLeaderMigration=true", []string{"--feature-gates=DisableCloudProviders=false"}, Error, "removed in 1.27"},
		{"v1.27.4", "ControllerManagerLeaderMigrationX=true", nil, "", ""},
		{"v1.27.4", "", nil, "", ""},
		// No facts before GA: nothing said.
		{"v1.23.17", "ControllerManagerLeaderMigration=true", nil, "", ""},
		{"latest", "ControllerManagerLeaderMigration=true", nil, "", ""},
	} {
		t.Run(tc.version+" "+tc.gates, func(t *testing.T) {
			fs := Lint(Side{Component: lmconfig.KCM, Version: tc.version, CloudProvider: "kind", FeatureGates: tc.gates, Args: tc.args})
			wantFinding(t, fs, tc.sev, where, tc.says)
		})
	}
}

// What 1.26 runs safely, the lint does not reject.
func TestGateOn126IsNoError(t *testing.T) {
	for _, c := range []string{lmconfig.KCM, lmconfig.CCM} {
		s := Side{Component: c, Version: "v1.26.13", LeaderMigration: true, FeatureGates: "ControllerManagerLeaderMigration=true"}
		if c == lmconfig.KCM {
			s.CloudProvider = "kind"
		}
		if fs := Lint(s); fs.Err() != nil {
			t.Errorf("%s 1.26 with the gate on: %v", c, fs.Err())
		}
	}
}

// The migration lock: the managers' check of the file takes only leases
// and endpoints, and client-go makes no endpoints lock from 1.24.
func TestMigrationLockByVersion(t *testing.T) {
	for _, tc := range []struct {
		version, lock string
		sev           Severity
		says          string
	}{
		{"v1.26.13", "leases", "", ""},
		{"v1.32.6", "leases", "", ""},
		{"v1.26.13", "endpoints", Error, "endpoints locks were removed from client-go in 1.24"},
		{"v1.32.6", "endpoints", Error, "exits when it comes to make the migration lock"},
		// 1.27's client-go still makes endpointsleases locks, but the
		// configuration may not name them.
		{"v1.27.4", "endpointsleases", Error, "is a client-go lock type, but not one a LeaderMigrationConfiguration may name"},
		{"v1.26.13", "configmaps", Error, "refuses the file and does not start"},
		{"v1.31.4", "configmapsleases", Error, "takes only leases or endpoints"},
		{"v1.31.4", "Leases", Error, `"Leases" is not a lock type`},
	} {
		t.Run(tc.version+" "+tc.lock, func(t *testing.T) {
			c := lmconfig.New(lmconfig.CCM, ServiceLB)
			c.ResourceLock = tc.lock
			fs := Lint(Side{Component: lmconfig.CCM, Version: tc.version, LeaderMigration: true, ConfigPath: "ccm.yaml", Config: c})
			wantFinding(t, fs, tc.sev, "ccm.yaml: resourceLock", tc.says)
		})
	}
}

// The main lock: endpoints and configmaps locks went from client-go in
// 1.24, endpointsleases and configmapsleases in 1.28.
func TestMainLockByVersion(t *testing.T) {
	for _, tc := range []struct {
		version, lock string
		sev           Severity
		says          string
	}{
		{"v1.26.13", "leases", "", ""},
		{"v1.26.13", "endpointsleases", "", ""},
		{"v1.27.4", "configmapsleases", "", ""},
		{"v1.28.15", "endpointsleases", Error, "endpointsleases locks were removed from client-go in 1.28"},
		{"v1.32.6", "configmapsleases", Error, "exits when it makes its main lock"},
		{"v1.26.13", "endpoints", Error, "endpoints locks were removed from client-go in 1.24"},
		{"v1.23.17", "configmaps", "", ""},
		{"v1.30.14", "lease", Error, `"lease" is not a lock type of client-go`},
	} {
		t.Run(tc.version+" "+tc.lock, func(t *testing.T) {
			s := Side{Component: lmconfig.CCM, Version: tc.version, Args: []string{"--leader-elect-resource-lock=" + tc.lock}}
			wantFinding(t, Lint(s), tc.sev, "cloud-controller-manager "+tc.version+" --leader-elect-resource-lock", tc.says)
		})
	}
	// Without leader election no lock is made.
	s := Side{Component: lmconfig.CCM, Version: "v1.31.4", Args: []string{"--leader-elect=false", "--leader-elect-resource-lock=endpoints"}}
	if fs := Lint(s); len(fs) != 0 {
		t.Errorf("no election, no lock: %s", fs)
	}
}

// Up to 1.31 the managers decode the file leniently (an unknown field
// dropped, a key given twice keeping its last value); from 1.32 strictly,
// refusing both.
func TestDecodingByVersion(t *testing.T) {
	in := "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: cloud-provider-extraction-migration\n" +
		"resourceLock: leases\nresourceLock: leases\ncontrollerLeaders:\n- name: service-lb-controller\n  component: cloud-controller-manager\n  compnent: '*'\n"
	c, err := lmconfig.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version          string
		unknownSays      string
		dupSev           Severity
		dupSays          string
		refusedByManager bool
	}{
		{"v1.26.13", "drops it without a word, so what runs is not what is written", Warning, "keeps the last value", false},
		{"v1.31.4", "decodes the file leniently", Warning, "from 1.32 the managers refuse the file", false},
		{"v1.32.6", "decodes the file strictly (from 1.32), refuses an unknown field and does not start", Error, "refuses a duplicate field and does not start", true},
	} {
		t.Run(tc.version, func(t *testing.T) {
			fs := Lint(Side{Component: lmconfig.CCM, Version: tc.version, LeaderMigration: true, ConfigPath: "ccm.yaml", Config: c})
			wantFinding(t, fs, Error, "ccm.yaml: controllerLeaders[0].compnent", tc.unknownSays)
			wantFinding(t, fs, tc.dupSev, "ccm.yaml: resourceLock (line 5)", tc.dupSays)
			if strings.Contains(fs.String(), "drops") == tc.refusedByManager {
				t.Errorf("lenient and strict texts mixed up:\n%s", fs)
			}
		})
	}
}

func TestMinorOf(t *testing.T) {
	for v, want := range map[string]int{"v1.26.13": 26, "1.32": 32, "v1.9.0": 9, "v2.0.0": 1 << 20} {
		if got, ok := minorOf(v); !ok || got != want {
			t.Errorf("minorOf(%q) = %d, %t", v, got, ok)
		}
	}
	for _, v := range []string{"", "latest", "v0.31.4", "vx.y"} {
		if _, ok := minorOf(v); ok {
			t.Errorf("minorOf(%q) parsed", v)
		}
	}
}

// The plan's note on the task doc's gate follows the version it is about.
func TestGateHistory(t *testing.T) {
	for v, want := range map[string]string{
		"v1.26.13": "accepts it with a warning",
		"v1.27.4":  "refuses it as an unknown gate",
		"v1.31.4":  "refuses it as an unknown gate",
		"v1.23.0":  "(beta): set it",
	} {
		if got := GateHistory(v); !strings.Contains(got, want) || !strings.HasPrefix(got, v) {
			t.Errorf("GateHistory(%s) = %q, want %q", v, got, want)
		}
	}
}
