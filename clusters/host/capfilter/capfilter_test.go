package capfilter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hostLikeThisOne lacks CAP_SYS_RESOURCE (bit 24), like the VMs this targets.
const hostLikeThisOne = Set(0x1fffeffffff)

func TestParseBoundingSet(t *testing.T) {
	s, err := parseBoundingSet(strings.NewReader("Name:\tx\nCapBnd:\t000001fffeffffff\n"))
	if err != nil || s != hostLikeThisOne {
		t.Fatalf("got %x, %v", s, err)
	}
	if got := s.Missing(40); !reflect.DeepEqual(got, []string{"CAP_SYS_RESOURCE"}) {
		t.Fatalf("missing = %v", got)
	}
	if _, err := parseBoundingSet(strings.NewReader("Name:\tx\n")); err == nil {
		t.Fatal("want error without CapBnd")
	}
}

func TestParseArgs(t *testing.T) {
	cases := []struct {
		args []string
		want Invocation
	}{
		{[]string{"--root", "/run/r", "--log", "l.json", "--log-format", "json", "--systemd-cgroup", "create", "--bundle", "/b", "--pid-file", "p", "id"},
			Invocation{Command: "create", Bundle: "/b"}},
		{[]string{"create", "-b=/x", "id"}, Invocation{Command: "create", Bundle: "/x"}},
		{[]string{"run", "id"}, Invocation{Command: "run"}},
		{[]string{"--root", "/r", "exec", "--process", "/tmp/p.json", "--detach", "id"}, Invocation{Command: "exec", ProcessFile: "/tmp/p.json"}},
		{[]string{"state", "id"}, Invocation{Command: "state"}},
		{[]string{"--version"}, Invocation{}},
	}
	for _, c := range cases {
		if got := ParseArgs(c.args); got != c.want {
			t.Errorf("ParseArgs(%q) = %+v, want %+v", c.args, got, c.want)
		}
	}
}

func TestFilterFileBundle(t *testing.T) {
	dir := t.TempDir()
	spec := `{"ociVersion":"1.0.2","process":{"args":["sh"],"capabilities":{
		"bounding":["CAP_CHOWN","CAP_SYS_RESOURCE","CAP_FUTURE_THING"],
		"effective":["CAP_SYS_RESOURCE"],"permitted":["CAP_NET_ADMIN","CAP_SYS_RESOURCE"]}},"hostname":"n"}`
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(Invocation{Command: "create", Bundle: dir}, hostLikeThisOne); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hostname string
		Process  struct{ Capabilities map[string][]string }
	}
	raw, _ := os.ReadFile(path)
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"bounding":  {"CAP_CHOWN", "CAP_FUTURE_THING"},
		"effective": {},
		"permitted": {"CAP_NET_ADMIN"},
	}
	if !reflect.DeepEqual(doc.Process.Capabilities, want) || doc.Hostname != "n" {
		t.Fatalf("got %+v", doc)
	}
}

func TestFilterFileProcessUntouchedWhenAllowed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "process.json")
	in := `{"args":["ls"],  "capabilities":{"bounding":["CAP_CHOWN"]}}`
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(Invocation{Command: "exec", ProcessFile: path}, hostLikeThisOne); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != in {
		t.Fatalf("file rewritten although nothing was removed: %s", raw)
	}
}

func TestFindRuntimeSkipsSelf(t *testing.T) {
	t.Setenv(RuntimeEnv, "/opt/runc")
	if got, _ := FindRuntime("/x"); got != "/opt/runc" {
		t.Fatalf("override ignored: %s", got)
	}
}
