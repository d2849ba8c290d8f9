package cloudcluster

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/internal/procs"
)

// A cluster whose claiming process died is an orphan; one claimed by a
// live process, or never claimed (made to last), is not.
func TestOrphansAreClustersOfDeadRuns(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	if err := Claim("live", "handover rehearse", ""); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	writeOwner(t, "killed", Owner{PID: dead.Process.Pid, Start: 1, What: "handover rehearse"})
	// The pid of a live process whose start differs: the pid was reused.
	writeOwner(t, "reused", Owner{PID: os.Getpid(), Start: 1, What: "handover rehearse"})
	if err := os.MkdirAll(filepath.Join(clustersDir(), "kept", "simcloud"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := Orphans(); !slices.Equal(got, []string{"killed", "reused"}) {
		t.Fatalf("orphans %v, want [killed reused]", got)
	}
	if got := Held(); !slices.Equal(got, []string{"live"}) {
		t.Fatalf("held by this process %v, want [live]", got)
	}
	if err := Claim("live", "handover rehearse", ""); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("claiming a cluster a live run holds: %v", err)
	}
	if err := Release("live"); err != nil {
		t.Fatal(err)
	}
	if err := Claim("killed", "handover rehearse", ""); err != nil {
		t.Fatalf("claiming a dead run's cluster: %v", err)
	}
	if fi, err := os.Stat(filepath.Dir(ownerFile("live"))); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cluster directory %v %v, want 0700", fi, err)
	}
}

func writeOwner(t *testing.T, cluster string, o Owner) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(ownerFile(cluster)), 0o700); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(o)
	if err := os.WriteFile(ownerFile(cluster), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if start, _ := procs.StartTime(o.PID); start == o.Start {
		t.Fatalf("owner %+v is alive", o)
	}
}

// A failed create whose cleanup failed too keeps its claim, so the next
// run prunes what it left; one that cleaned up, or retained its nodes on
// purpose, releases it.
func TestAFailedCleanupKeepsTheClaim(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	failed := errors.New("kubeadm init failed")
	leftBehind := kindcluster.CleanedUp(failed, func() error { return errors.New("docker rm: device or resource busy") })
	for _, c := range []struct {
		name     string
		err      error
		retained bool
		claimed  bool
	}{
		{"cleaned up", kindcluster.CleanedUp(failed, func() error { return nil }), false, false},
		{"cleanup failed", leftBehind, false, true},
		{"cleanup failed, nodes retained", leftBehind, true, false},
		{"created", nil, false, true},
	} {
		if err := Claim("c", "handover rehearse", ""); err != nil {
			t.Fatal(err)
		}
		err := settleClaim("c", c.err, c.retained)
		if !errors.Is(err, c.err) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
		}
		o, claimed := readOwner("c")
		if claimed != c.claimed || claimed && o.PID != os.Getpid() {
			t.Errorf("%s: claimed %v (%+v), want %v", c.name, claimed, o, c.claimed)
		}
		if err != nil && strings.Contains(err.Error(), "stays claimed") != claimed {
			t.Errorf("%s: the error does not say what became of the claim: %v", c.name, err)
		}
		if err := Release("c"); err != nil {
			t.Fatal(err)
		}
	}
}

// A cluster without a cloud has no client; one whose cloud cannot be
// called is an error, not "no cloud".
func TestClientIfAny(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	if c, err := ClientIfAny("plain", "test"); c != nil || err != nil {
		t.Fatalf("a cluster without a cloud: %v, %v", c, err)
	}
	dir := StateDir("old")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, cloudConfigFile), []byte(`{"url":"http://127.0.0.1:1","token":"t"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ClientIfAny("old", "test"); err == nil || !strings.Contains(err.Error(), "create it again") {
		t.Fatalf("a cloud without an admin token: %v", err)
	}
}
