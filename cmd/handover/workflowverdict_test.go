package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/verify/checks"
)

// verdictStep is the run script of the reusable workflow's Verdict step,
// which reads the exit code and junit.xml into the workflow's outputs and
// annotations.
func verdictStep(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../.github/workflows/rehearse.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID  string `json:"id"`
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	for _, st := range wf.Jobs["rehearse"].Steps {
		if st.ID == "verdict" {
			// Values reach it through env: only, so it runs here as there.
			if strings.Contains(st.Run, "${{") {
				t.Fatal("the verdict step expands an expression in its script")
			}
			return st.Run
		}
	}
	t.Fatal("no step verdict")
	return ""
}

// The verdict step, run by bash on the junit.xml handover writes: the
// verdict follows the exit code, the failed checks and one annotation per
// failed case come out of the XML unescaped and escaped again as workflow
// commands, and the cache is saved only once the images were built.
func TestReusableWorkflowVerdict(t *testing.T) {
	for _, tool := range []string{"bash", "sed", "sort", "paste"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIPPING: no %s to run the workflow's verdict step", tool)
		}
	}
	script := verdictStep(t)
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tricky := "a \"quoted\" <node> & 100%, at 1:2\tthen\r\nnext 'line', as written: &lt; %0A"
	red := reports.Report{Title: "rehearsal", Start: start, End: start.Add(time.Minute), Results: []checks.Result{
		{Check: "availability", Subject: "api", Passed: true},
		{Check: "single-owner", Subject: "service-controller", Violations: []checks.Violation{
			{From: start, To: start.Add(time.Second), Message: tricky}, {Message: "second"}}},
		{Check: "provider-id", Subject: `node "a",b`, Violations: []checks.Violation{{Message: "no ProviderID"}}},
		{Check: "single-owner", Subject: "route-controller", Violations: []checks.Violation{{Message: "twice"}}},
	}}
	stopped := func(phase string) *reports.Report {
		r := reports.Stopped("rehearsal", phase, errors.New("docker: gone"), start, start, reports.About{})
		return &r
	}
	cases := map[string]struct {
		code                    string
		report                  *reports.Report
		verdict, failed, images string
		annotations             []string
	}{
		"red": {"1", &red, "red", "provider-id,single-owner", "built", []string{
			`::error title=provider-id%3A node "a"%2Cb::no ProviderID`,
			"::error title=single-owner%3A service-controller::a \"quoted\" <node> & 100%25, at 1:2\tthen%0D%0Anext 'line', as written: &lt; %250A (and 1 more)",
			"::error title=single-owner%3A route-controller::twice",
		}},
		"green": {"0", &reports.Report{Title: "rehearsal", Results: red.Results[:1]}, "green", "", "built", nil},
		"stopped at the images": {"3", stopped("images"), "error", "setup", "",
			[]string{"::error title=setup%3A images::docker: gone"}},
		"stopped after the images": {"3", stopped("setup"), "error", "setup", "built",
			[]string{"::error title=setup%3A setup::docker: gone"}},
		"stopped at the cluster": {"3", stopped("cluster"), "error", "setup", "built",
			[]string{"::error title=setup%3A cluster::docker: gone"}},
		"cluster name taken":      {"2", stopped("cluster"), "error", "setup", "", []string{"::error title=setup%3A cluster::docker: gone"}},
		"bad input":               {"2", stopped("input"), "error", "setup", "", []string{"::error title=setup%3A input::docker: gone"}},
		"the rehearsal never ran": {"", nil, "error", "", "", nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			if c.report != nil {
				dir := filepath.Join(ws, "handover-reports")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := reports.WriteJUnit(&b, *c.report); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "junit.xml"), b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			outputs := filepath.Join(ws, "outputs")
			// As GitHub runs a step whose shell is bash.
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
			cmd.Env = append(os.Environ(), "CODE="+c.code, "GITHUB_WORKSPACE="+ws, "GITHUB_OUTPUT="+outputs)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			var annotations []string
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(l, "::") {
					annotations = append(annotations, l)
				}
			}
			if strings.Join(annotations, "\n") != strings.Join(c.annotations, "\n") {
				t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(annotations, "\n"), strings.Join(c.annotations, "\n"))
			}
			b, err := os.ReadFile(outputs)
			if err != nil {
				t.Fatal(err)
			}
			want := "verdict=" + c.verdict + "\nfailed=" + c.failed + "\nimages=" + c.images + "\n"
			if string(b) != want {
				t.Errorf("outputs:\n%s\nwant:\n%s", b, want)
			}
		})
	}
}
