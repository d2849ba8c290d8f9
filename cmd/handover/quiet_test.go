package main

import (
	"strings"
	"testing"
)

// The long-running commands run on one P; short ones keep the default.
func TestQuietCommands(t *testing.T) {
	root := newRootCommand()
	for path, want := range map[string]bool{"rehearse": true, "migrate": true, "observe": true,
		"simcloud serve": true, "lint": false, "report": false, "images build": false} {
		c, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := c.Annotations["handover/one-proc"] != ""; got != want {
			t.Errorf("%s quiet = %v, want %v", path, got, want)
		}
	}
}
