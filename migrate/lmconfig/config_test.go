package lmconfig

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
)

func TestRoundTrip(t *testing.T) {
	c := New(CCM, "service-lb-controller", "node-route-controller")
	got, err := Parse([]byte(c.YAML()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner("node-route-controller") != CCM || got.LeaderName != DefaultLeaderName || got.Owner("x") != "" {
		t.Fatalf("round trip lost data: %+v", got)
	}
}

func TestWildcardRoundTrips(t *testing.T) {
	c := New(Wildcard, "service-lb-controller")
	got, err := Parse([]byte(c.YAML()))
	if err != nil || got.Owner("service-lb-controller") != Wildcard {
		t.Fatalf("wildcard component did not survive YAML: %v\n%s", err, c.YAML())
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":         "  \n",
		"malformed":     "kind: [unclosed\n",
		"no apiVersion": "kind: LeaderMigrationConfiguration\ncontrollerLeaders:\n- name: route\n",
		"another kind":  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n",
		"another group": "apiVersion: kubeadm.k8s.io/v1beta3\nkind: LeaderMigrationConfiguration\n",
		"wrong type":    "controllerLeaders: route\n",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), "LeaderMigrationConfiguration") {
			t.Errorf("%s: want a clear error, got %v", name, err)
		}
	}
}

// The managers' decoder up to 1.31 is lenient: a file with an unknown
// field is read, the field dropped (from 1.32 it refuses the file); Parse
// reads it as up to 1.31 and keeps where the field was for the lint.
func TestParseKeepsUnknownFields(t *testing.T) {
	in := "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: x\nresourceLock: leases\n" +
		"controllerLeader: []\ncontrollerLeaders:\n- name: service-lb-controller\n  compnent: '*'\n"
	c, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Unknown, ","); got != "controllerLeader,controllerLeaders[0].compnent" {
		t.Errorf("unknown fields: %s", got)
	}
	if c.ControllerLeaders[0].Component != "" || c.YAML() != in {
		t.Errorf("parsed %+v; file not kept as given", c)
	}
}

func TestParseAcceptsEveryRegisteredVersion(t *testing.T) {
	for _, v := range APIVersions {
		c, err := Parse([]byte("kind: LeaderMigrationConfiguration\napiVersion: " + v + "\nleaderName: x\nresourceLock: leases\n"))
		if err != nil || len(c.Unknown) != 0 {
			t.Errorf("%s: %v %v", v, err, c)
		}
	}
}

// As the managers' filter reads it, the last entry for a name counts.
func TestOwnerIsTheLastEntry(t *testing.T) {
	c := New(KCM, "service-lb-controller")
	c.ControllerLeaders = append(c.ControllerLeaders, ControllerLeader{Name: "service-lb-controller", Component: CCM})
	if got := c.Owner("service-lb-controller"); got != CCM {
		t.Errorf("owner %s, want the last entry's %s", got, CCM)
	}
}

// The managers match field names exactly: LeaderName is unknown, not leaderName.
func TestParseIsCaseSensitive(t *testing.T) {
	c, err := Parse([]byte("kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nLeaderName: x\nresourceLock: leases\n"))
	if err != nil || c.LeaderName != "" || len(c.Unknown) != 1 || c.Unknown[0] != "LeaderName" {
		t.Fatalf("%+v %v", c, err)
	}
}

// A path that is no small regular file is refused before it is read.
func TestReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	body := New(CCM, "service-lb-controller").YAML() + strings.Repeat("# padding\n", 110000)
	if err := os.WriteFile(big, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "is a character device",
		fifo:        "is a named pipe (FIFO)",
		dir:         "is a directory",
		big:         "more than the 1 MiB handover reads",
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5s", path)
		}
	}
}

// The components a configuration names are the managers' own names, as
// the rest of handover knows them.
func TestComponentsAreTheManagers(t *testing.T) {
	if KCM != managers.KCM || CCM != managers.CCM {
		t.Fatalf("lmconfig names %s, %s; clusters/managers %s, %s", KCM, CCM, managers.KCM, managers.CCM)
	}
}

// A key given twice: up to 1.31 the managers keep the last value, as Parse
// does; from 1.32 they refuse the file. Parse keeps which key, and where.
func TestParseKeepsDuplicates(t *testing.T) {
	in := "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: a\nleaderName: b\nresourceLock: leases\n" +
		"controllerLeaders:\n- name: service-lb-controller\n  component: '*'\n  component: cloud-controller-manager\n"
	c, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Duplicates, ","); got != "leaderName (line 4),component (line 9)" {
		t.Errorf("duplicates: %s", got)
	}
	if c.LeaderName != "b" || c.Owner("service-lb-controller") != CCM || len(c.Unknown) != 0 {
		t.Errorf("the last value wins: %+v", c)
	}
	if c, err := Parse([]byte(New(CCM, "service-lb-controller").YAML())); err != nil || c.Duplicates != nil || c.Clone().Duplicates != nil {
		t.Errorf("no duplicates: %v %v", c, err)
	}
}
