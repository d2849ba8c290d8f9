package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/exitcode"
)

// Every one of these fails before an image is built or a cluster made, as
// bad input, and leaves a junit.xml whose one failed case names the phase.
func TestRehearseRejectsBadInputFirst(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good.yaml", "procedure: taskdoc\nload: light\n")
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown load":          {[]string{"rehearse", "--load", "extreme"}, `--load "extreme": use one of heavy, light, moderate, none`},
		"unknown fault":         {[]string{"rehearse", "--faults", "meteor"}, `--faults "meteor": use one of ccm-denied-routes, ccm-other-region, cloud-lag, cloud-outage, cloud-throttle, cp-node-stop, leader-kill, node-reregister, none, service-delete`},
		"unknown procedure":     {[]string{"rehearse", "--procedure", "eks"}, "eks"},
		"load without workers":  {[]string{"rehearse", "--workers", "0"}, "needs at least one worker"},
		"config and flags":      {[]string{"rehearse", "--config", good, "--load", "heavy"}, "--config " + good + " and --load contradict"},
		"unknown field in file": {[]string{"rehearse", "--config", file("typo.yaml", "procedure: taskdoc\nlaod: heavy\n")}, `typo.yaml:2:1: unknown field "laod" (fields: name, procedure, flavour, provider,`},
		"malformed file":        {[]string{"rehearse", "--config", file("bad.yaml", "procedure: [taskdoc\n")}, "rehearsal file"},
		"fault at a step the procedure lacks": {[]string{"rehearse", "--config", file("step.yaml", "faults: {name: leader-kill, step: deploy-ccm}\n")},
			`step "deploy-ccm" is not a step of the procedure`},
		"bad fault delay":       {[]string{"rehearse", "--config", file("delay.yaml", "faults: {name: leader-kill, delay: soon}\n")}, `faults.delay "soon"`},
		"missing configuration": {[]string{"rehearse", "--leader-migration-config", "kcm=" + filepath.Join(dir, "none.yaml")}, "no such file"},
		"configuration of another kind": {[]string{"rehearse", "--leader-migration-config", "ccm=" + file("pod.yaml", "apiVersion: v1\nkind: Pod\n")},
			"not a LeaderMigrationConfiguration"},
		"unknown field in a configuration": {[]string{"rehearse", "--leader-migration-config", "ccm=" + file("ccm.yaml", lmFile+"controllerLeader: []\n")},
			"preflight lint found"},
		"a flag handover sets":  {[]string{"rehearse", "--kcm-arg=--cloud-provider=aws"}, "handover sets --cloud-provider itself"},
		"negative scale":        {[]string{"rehearse", "--scale", "-3"}, "--scale: counts, intervals and rates must not be negative"},
		"a scale too large":     {[]string{"rehearse", "--scale", "100000"}, "--scale (scale.nodes) 100000: at most 1500"},
		"scale services alone":  {[]string{"rehearse", "--scale-services", "5"}, "give --scale N (scale.nodes) too"},
		"scale in a file":       {[]string{"rehearse", "--config", file("scale.yaml", "scale: {nodes: 10, services: 20}\n")}, "--scale-services (scale.services) 20 > --scale (scale.nodes) 10"},
		"flags that contradict": {[]string{"rehearse", "--ccm-arg=--leader-elect-lease-duration=5s"}, "preflight lint found"},
		"kcmArgs in a file":     {[]string{"rehearse", "--config", file("args.yaml", "kcmArgs: [leader-elect=false]\n")}, `--kcm-arg "leader-elect=false"`},
		"out with config":       {[]string{"rehearse", "--config", good, "--out", dir, "--workers", "0"}, "--workers contradict"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			err := runCLI(t, append(c.args, "--out", out)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got %v", c.want, err)
			}
			if code := exitcode.Of(err); code != exitcode.BadInput {
				t.Errorf("exit code %d, want %d", code, exitcode.BadInput)
			}
			junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(junit), `failures="1"`) || !regexp.MustCompile(`<testcase name="(input|preflight)" classname="handover.setup"`).Match(junit) {
				t.Errorf("junit.xml:\n%s", junit)
			}
		})
	}
}

const lmFile = "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1alpha1\nleaderName: cloud-provider-extraction-migration\nresourceLock: leases\n" +
	"controllerLeaders:\n- name: service-lb-controller\n  component: '*'\n- name: node-route-controller\n  component: '*'\n- name: cloud-node-lifecycle-controller\n  component: '*'\n"

// A refused rehearse leaves the reports of the run before it in --out as
// they were, byte for byte, and its error says so.
func TestARefusedRehearseKeepsTheRunBefore(t *testing.T) {
	out := t.TempDir()
	earlier := map[string]string{"junit.xml": `<testsuites name="handover rehearsal of taskdoc" tests="146" failures="0">`,
		"summary.md": "# green\n", "report.html": "<html></html>\n", "timeline.jsonl": `{"source":"rehearsal"}` + "\n"}
	for name, body := range earlier {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := runCLI(t, "rehearse", "--load", "extreme", "--out", out)
	if exitcode.Of(err) != exitcode.BadInput || !strings.Contains(errString(err), "holds an earlier run's junit.xml, summary.md, report.html, timeline.jsonl: left as they were") {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
	for name, body := range earlier {
		if got, _ := os.ReadFile(filepath.Join(out, name)); string(got) != body {
			t.Errorf("%s changed: %q", name, got)
		}
	}
}
