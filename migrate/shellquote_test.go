package migrate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sh runs script with sh in a fresh directory and returns its output and
// the directory.
func sh(t *testing.T, script string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH to paste the commands into")
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sh -c %q: %v\n%s", script, err, out)
	}
	return string(out), dir
}

func noFileX(t *testing.T, dir, what string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Errorf("%s ran a command of its own: x was created", what)
	}
}

// A shell reads back exactly the words given, whatever they hold.
func TestShellJoinRoundTrips(t *testing.T) {
	words := []string{"kubectl", "'; touch x; '", "$(touch x)", "`touch x`", "a b", "", "it's", `back\slash`, "new\nline", "*", "~", "system::leader-locking", `[{"op":"add"}]`}
	out, dir := sh(t, "printf '[%s]\\n' "+shellJoin(words...))
	var want strings.Builder
	for _, w := range words {
		want.WriteString("[" + w + "]\n")
	}
	if out != want.String() {
		t.Errorf("sh read:\n%s\nwant:\n%s", out, want.String())
	}
	noFileX(t, dir, "a quoted word")
	if got := shellJoin("kubectl", "-n", "kube-system", "get", "lease", "cloud-provider-extraction-migration"); got != "kubectl -n kube-system get lease cloud-provider-extraction-migration" {
		t.Errorf("plain words are quoted: %s", got)
	}
}

// Every kubectl command a plan prints is safe to paste, even with a lease
// name from a user's configuration that breaks out of single quotes (the
// lint refuses the name; the plan still prints).
func TestPlanCommandsSafeToPaste(t *testing.T) {
	bad := "'; touch x; '"
	f := filepath.Join(t.TempDir(), "ccm.yaml")
	cfg := "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1alpha1\nleaderName: \"" + bad + "\"\nresourceLock: leases\n" +
		"controllerLeaders:\n- name: service-lb-controller\n  component: '*'\n"
	if err := os.WriteFile(f, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := DefaultSpec(TaskDoc)
	if err := s.SetUserConfigs([]string{"ccm=" + f}); err != nil {
		t.Fatal(err)
	}
	p, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, st := range p.Steps {
		for _, it := range st.Plan {
			if it.Kind != Command {
				continue
			}
			for _, l := range strings.Split(it.Body, "\n") {
				if strings.HasPrefix(l, "kubectl ") {
					lines = append(lines, l)
				}
			}
		}
	}
	// kubectl prints its arguments instead of running.
	out, dir := sh(t, "kubectl() { printf '[%s]\\n' \"$@\"; }\n"+strings.Join(lines, "\n"))
	noFileX(t, dir, "a plan's kubectl command")
	if !strings.Contains(out, `"resourceNames":["`+bad+`"]`) {
		t.Errorf("the grant for the configuration's lease lost its name:\n%s", out)
	}
	if fs := s.Lint(); !strings.Contains(fs.String(), "is not a Lease name") {
		t.Errorf("the lint takes the name:\n%s", fs)
	}
}

// The flags a plan shows as a manifest's command list read back as given.
func TestFlagsPlanIsYAML(t *testing.T) {
	it := FlagsPlan("kube-controller-manager", "add", "--cluster-name=a #b", "--x=1\n- --y=2", "--node-monitor-period=5s")
	for _, want := range []string{"- \"--cluster-name=a #b\"\n", "- \"--x=1\\n- --y=2\"\n", "- --node-monitor-period=5s\n"} {
		if !strings.Contains(it.Body, want) {
			t.Errorf("plan lacks %q:\n%s", want, it.Body)
		}
	}
}
