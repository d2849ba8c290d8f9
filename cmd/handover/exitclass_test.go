package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/exitcode"
)

// Each class of failure exits with its code, the error's text unchanged.
// None of these makes anything: each stops on its input, on a cache that
// cannot be made, or judges a timeline.
func TestExitCodesByClass(t *testing.T) {
	red := writeObservation(t, t.TempDir(), "cp-1", 0) // a minute of samples proves little: checks fail
	bad := writeTemp(t, "bad.yaml", lmFile+"controllerLeaders: []\n")
	for _, c := range []struct {
		name string
		args []string
		want exitcode.Code
		says string
	}{
		{"version", []string{"version"}, exitcode.Green, ""},
		{"a red verdict", []string{"report", red, "--out", t.TempDir()}, exitcode.Red, "checks failed"},
		{"an unknown command", []string{"rehears"}, exitcode.BadInput, `unknown command "rehears" for "handover"`},
		{"an unknown flag", []string{"rehearse", "--bogus"}, exitcode.BadInput, "unknown flag: --bogus"},
		{"a flag's value", []string{"cluster", "create", "--workers", "two"}, exitcode.BadInput, `invalid argument "two" for "--workers" flag`},
		{"arguments", []string{"cluster", "remove-node"}, exitcode.BadInput, "accepts 1 arg(s), received 0"},
		{"a required flag", []string{"simcloud", "serve"}, exitcode.BadInput, `required flag(s) "admin-token-file", "cloud-config", "pod-network" not set`},
		{"exclusive flags", []string{"simcloud", "faults", "--clear", "--latency", "1s"}, exitcode.BadInput, "if any flags in the group [clear latency] are set none of the others can be"},
		{"a duration out of range", []string{"observe", "--for", "-1s"}, exitcode.BadInput, "--for"},
		{"a topology", []string{"cluster", "create", "--control-planes", "0"}, exitcode.BadInput, "at least 1 control-plane"},
		{"an image version", []string{"images", "build", "v1.2.3"}, exitcode.BadInput, "unknown Kubernetes version"},
		{"lint errors", []string{"lint", "--leader-migration-config", bad}, exitcode.BadInput, "error(s)"},
		{"a plan's lint errors", []string{"plan", "--leader-migration-config", "ccm=" + bad}, exitcode.BadInput, "preflight lint found"},
		{"a matrix shard", []string{"matrix", "--versions", "1-2"}, exitcode.BadInput, ""},
		{"a timeline", []string{"report", filepath.Join(t.TempDir(), "none.jsonl")}, exitcode.BadInput, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := runCLI(t, c.args...)
			if got := exitcode.Of(err); got != c.want || (c.says != "" && !strings.Contains(errString(err), c.says)) {
				t.Fatalf("exit %d (%v), want %d and %q", got, err, c.want, c.says)
			}
		})
	}
}

// A cache that cannot be made is the machine's: infrastructure.
func TestAnUnusableCacheIsInfrastructure(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", "/dev/null/handover")
	err := runCLI(t, "images", "build")
	if got := exitcode.Of(err); got != exitcode.Infrastructure || !strings.Contains(errString(err), "set HANDOVER_CACHE to a private directory") {
		t.Fatalf("exit %d (%v), want %d", got, err, exitcode.Infrastructure)
	}
}

// The process exits with the code of its class, and says the error as
// before.
func TestMainExitsWithTheClass(t *testing.T) {
	red := writeObservation(t, t.TempDir(), "cp-1", 0)
	for _, c := range []struct {
		args []string
		env  string
		want int
	}{
		{[]string{"version"}, "", 0},
		{[]string{"report", red, "--out", t.TempDir()}, "", 1},
		{[]string{"rehearse", "--bogus"}, "", 2},
		{[]string{"images", "build"}, "HANDOVER_CACHE=/dev/null/handover", 3},
	} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), mainArgsEnv+"="+strings.Join(c.args, "\n"), "HANDOVER_CACHE="+t.TempDir())
		if c.env != "" {
			cmd.Env = append(cmd.Env, c.env)
		}
		out, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != c.want {
			t.Errorf("%v: exit %d, want %d:\n%s", c.args, got, c.want, out)
		}
		if c.want != 0 && !strings.Contains(string(out), "ERROR: ") {
			t.Errorf("%v: the error is not said:\n%s", c.args, out)
		}
	}
}

// The root help and the commands page document every code.
func TestHelpDocumentsExitCodes(t *testing.T) {
	out, err := runCLIOut(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range exitcode.Table {
		if !strings.Contains(out, r.Meaning) {
			t.Errorf("the help lacks exit code %d: %q", r.Code, r.Meaning)
		}
		if !strings.Contains(string(page), fmt.Sprintf("\n| %d | ", r.Code)) {
			t.Errorf("docs/commands.md's table lacks exit code %d", r.Code)
		}
	}
}
