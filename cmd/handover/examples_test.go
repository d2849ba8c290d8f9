package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/rehearsal"
)

// helpCommand is one handover command line a help text shows.
type helpCommand struct {
	owner   *cobra.Command // whose help shows it
	example bool           // in its Example (else an indented line of its Long)
	line    string
}

// helpCommands are the handover command lines of every command's Example
// and Long (indented, as the root's "Start with"), continuation lines
// joined, each cut at a pipe and a shell comment.
func helpCommands(root *cobra.Command) []helpCommand {
	var out []helpCommand
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, text := range []struct {
			s       string
			example bool
		}{{c.Example, true}, {c.Long, false}} {
			for _, l := range joinContinued(text.s) {
				l, _, _ = strings.Cut(l, " | ")
				l, _, _ = strings.Cut(l, " # ")
				if strings.HasPrefix(l, "  handover ") || (text.example && strings.HasPrefix(strings.TrimSpace(l), "handover ")) {
					out = append(out, helpCommand{owner: c, example: text.example, line: strings.TrimSpace(l)})
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// joinContinued splits text into lines, a line ending in a backslash
// joined with the next.
func joinContinued(text string) []string {
	var out []string
	var cur string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasSuffix(l, `\`) {
			cur += strings.TrimSuffix(l, `\`) + " "
			continue
		}
		out = append(out, cur+l)
		cur = ""
	}
	return out
}

// Every command line a help text shows parses: the command exists, takes
// those flags with those values and that many arguments, and no required
// or exclusive flag is missed. Nothing runs.
func TestHelpExamplesParse(t *testing.T) {
	lines := helpCommands(newRootCommand())
	if len(lines) < 10 {
		t.Fatalf("found %d example lines: the help's layout changed, and this test with it", len(lines))
	}
	for _, h := range lines {
		t.Run(h.owner.CommandPath()+": "+h.line, func(t *testing.T) {
			words := strings.Fields(h.line)
			for _, w := range words {
				if strings.ContainsAny(w, `"'`) {
					t.Fatalf("quoted words: split them as a shell would before parsing %q", h.line)
				}
			}
			root := newRootCommand()
			c, rest, err := root.Find(words[1:])
			switch {
			case err != nil:
				t.Fatal(err)
			case c == root || !c.Runnable():
				t.Fatalf("%q names no command that runs", h.line)
			case h.example && c.CommandPath() != h.owner.CommandPath():
				t.Fatalf("an example of %s runs %s", h.owner.CommandPath(), c.CommandPath())
			}
			if err := c.ParseFlags(rest); err != nil {
				t.Fatal(err)
			}
			for _, check := range []func() error{
				func() error { return c.ValidateArgs(c.Flags().Args()) },
				c.ValidateRequiredFlags, c.ValidateFlagGroups,
				func() error { return checkDurations(c) },
			} {
				if err := check(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// The rehearsal file rehearse's help shows is one: every field it sets is
// a field, with a value of its type.
func TestRehearseHelpsFileParses(t *testing.T) {
	c, _, err := newRootCommand().Find([]string{"rehearse"})
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(c.Long, "before anything runs:\n\n")
	body, _, ok2 := strings.Cut(after, "\n\n")
	if !ok || !ok2 {
		t.Fatal("rehearse's help has no rehearsal file after \"before anything runs:\"")
	}
	path := filepath.Join(t.TempDir(), "rehearsal.yaml")
	if err := os.WriteFile(path, []byte(body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rehearsal.ReadFile(path); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
}
