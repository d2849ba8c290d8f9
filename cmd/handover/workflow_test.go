package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// reusableWorkflow is the reusable workflow as YAML reads it: its inputs
// and its rehearse job's steps. YAML 1.1 reads the key on as true.
type reusableWorkflow struct {
	On struct {
		WorkflowCall struct {
			Inputs map[string]struct {
				Description string `json:"description"`
			} `json:"inputs"`
		} `json:"workflow_call"`
	} `json:"true"`
	Jobs map[string]struct {
		Steps []struct {
			Run string `json:"run"`
		} `json:"steps"`
	} `json:"jobs"`
}

func readReusableWorkflow(t *testing.T) reusableWorkflow {
	t.Helper()
	b, err := os.ReadFile("../../.github/workflows/rehearse.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var wf reusableWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	return wf
}

// The reusable workflow users call from their pipelines runs commands of
// this binary: each flag it passes must be one the command has.
func TestReusableWorkflowUsesRealFlags(t *testing.T) {
	wf := readReusableWorkflow(t)
	if _, ok := wf.On.WorkflowCall.Inputs["rehearsal-file"]; !ok {
		t.Fatal("no rehearsal-file input")
	}
	cmds := map[string]bool{}
	for _, c := range newRootCommand().Commands() {
		cmds[c.Name()] = true
	}
	call := regexp.MustCompile(`bin/handover ([a-z]+)((?:\s+(?:--[a-z-]+|"[^"]*"|\S+))*)`)
	flag := regexp.MustCompile(`--([a-z-]+)`)
	seen := 0
	for _, st := range wf.Jobs["rehearse"].Steps {
		for _, m := range call.FindAllStringSubmatch(st.Run, -1) {
			seen++
			c, _, err := newRootCommand().Find([]string{m[1]})
			if err != nil || !cmds[m[1]] {
				t.Errorf("no command %q", m[1])
				continue
			}
			for _, f := range flag.FindAllStringSubmatch(m[2], -1) {
				if c.Flags().Lookup(f[1]) == nil {
					t.Errorf("handover %s has no --%s", m[1], f[1])
				}
			}
		}
	}
	if seen < 2 {
		t.Errorf("the workflow runs %d handover commands, want host prepare and rehearse", seen)
	}
}

// The workflow's inputs that are rehearse's flags name the flag and, where
// it has one, its default, as the command has them.
func TestReusableWorkflowInputsAreFlags(t *testing.T) {
	wf := readReusableWorkflow(t)
	c, _, err := newRootCommand().Find([]string{"rehearse"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"provider", "from", "to"} {
		in, ok := wf.On.WorkflowCall.Inputs[name]
		f := c.Flags().Lookup(name)
		switch {
		case !ok:
			t.Errorf("no input %s", name)
		case f == nil:
			t.Errorf("handover rehearse has no --%s", name)
		case !strings.Contains(in.Description, "handover rehearse --"+name):
			t.Errorf("input %s: its description does not name handover rehearse --%s", name, name)
		case f.DefValue != "" && !strings.Contains(in.Description, f.DefValue):
			t.Errorf("input %s: its description does not say the default, %s", name, f.DefValue)
		}
	}
}
