package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// eachFlag calls do for every flag of every command below root, its
// former names included.
func eachFlag(root *cobra.Command, do func(c *cobra.Command, f *pflag.Flag)) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { do(c, f) })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// path is c's path below the root ("cluster create").
func path(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// spellings maps every name of an idea other than its own to the idea.
func spellings() map[string]flagIdea {
	out := map[string]flagIdea{}
	for _, idea := range flagIdeas {
		for former := range idea.Was {
			out[former] = idea
		}
		for _, also := range idea.Also {
			out[also] = idea
		}
	}
	return out
}

// One idea, one name: no command shows another spelling of an idea in
// the table (but those kept, each with its reason), and every command
// gives an idea with one default that default.
func TestEveryIdeaHasOneName(t *testing.T) {
	other := spellings()
	byName := map[string]flagIdea{}
	for _, idea := range flagIdeas {
		byName[idea.Name] = idea
	}
	eachFlag(newRootCommand(), func(c *cobra.Command, f *pflag.Flag) {
		key := path(c) + " --" + f.Name
		if idea, ok := other[f.Name]; ok && !f.Hidden && keptNames[key] == "" {
			t.Errorf("%s means %q, which every command calls --%s: rename it, keeping --%s as a former name (flagIdeas' Was)",
				key, idea.Idea, idea.Name, f.Name)
		}
		if idea, ok := byName[f.Name]; ok && idea.Default != "" && f.DefValue != idea.Default {
			t.Errorf("%s defaults to %q; every command defaults --%s to %q", key, f.DefValue, f.Name, idea.Default)
		}
	})
	for key := range keptNames {
		cmd, flag, _ := strings.Cut(key, " --")
		if _, ok := other[flag]; !ok {
			t.Errorf("keptNames has %s, which is no idea's other spelling: remove the row", key)
		}
		if f := lookup(t, newRootCommand(), cmd, flag); f == nil {
			t.Errorf("keptNames has %s, which no longer exists: remove the row", key)
		}
	}
}

// A former name still works where it was, as the renamed flag itself: it
// sets the same value, is hidden from --help, and warns, naming the new one.
func TestFormerNamesStillWork(t *testing.T) {
	for _, idea := range flagIdeas {
		for former, cmd := range idea.Was {
			root := newRootCommand()
			f, now := lookup(t, root, cmd, former), lookup(t, root, cmd, idea.Name)
			if f == nil || now == nil {
				t.Errorf("%s: --%s and --%s should both exist (flagIdeas)", cmd, former, idea.Name)
				continue
			}
			if !f.Hidden || f.Deprecated != "use --"+idea.Name+" instead" || f.Value != now.Value {
				t.Errorf("%s --%s: hidden %v, deprecated %q, same value as --%s %v", cmd, former, f.Hidden, f.Deprecated, idea.Name, f.Value == now.Value)
			}
		}
	}
	// Only where it was: a former name is no new spelling elsewhere.
	other := spellings()
	eachFlag(newRootCommand(), func(c *cobra.Command, f *pflag.Flag) {
		if idea, ok := other[f.Name]; ok && f.Hidden && idea.Was[f.Name] != path(c) {
			t.Errorf("%s has the hidden --%s, which it never had", path(c), f.Name)
		}
	})
}

// Used, a former name sets the flag and says what to write instead; the
// help shows only the new name.
func TestAFormerNameWarns(t *testing.T) {
	root := newRootCommand()
	var out strings.Builder
	root.SetOut(&out)
	root.SetErr(&out)
	c, args, err := root.Find([]string{"lint", "--ccm-provider", "azure", "--kcm-version", "v1.29.15"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{"provider": "azure", "from": "v1.29.15"} {
		if got := c.Flags().Lookup(flag).Value.String(); got != want {
			t.Errorf("--%s is %q, want %q", flag, got, want)
		}
	}
	for _, want := range []string{"Flag --ccm-provider has been deprecated, use --provider instead", "Flag --kcm-version has been deprecated, use --from instead"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no warning %q in:\n%s", want, out.String())
		}
	}
	help, err := runCLIOut(t, "lint", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(help, "--ccm-provider") || strings.Contains(help, "--kcm-version") || !strings.Contains(help, "--provider") {
		t.Errorf("lint --help shows a former name, or not the new one:\n%s", help)
	}
}

// lookup is flag of the command at path below root, or nil.
func lookup(t *testing.T, root *cobra.Command, path, flag string) *pflag.Flag {
	t.Helper()
	c, _, err := root.Find(strings.Fields(path))
	if err != nil || c.CommandPath() != root.Name()+" "+path {
		t.Errorf("no command %q", path)
		return nil
	}
	return c.Flags().Lookup(flag)
}

// The docs' table of names is flagIdeas'.
func TestTheDocsListEveryName(t *testing.T) {
	raw, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, idea := range flagIdeas {
		row := "| `--" + idea.Name + "` |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/commands.md has no row %s (%s)", row, idea.Idea)
		}
		formers := make([]string, 0, len(idea.Was))
		for former := range idea.Was {
			formers = append(formers, former)
		}
		slices.Sort(formers)
		for _, former := range formers {
			if !strings.Contains(doc, "`--"+former+"` ("+idea.Was[former]+")") {
				t.Errorf("docs/commands.md does not name --%s (%s) as --%s's former name", former, idea.Was[former], idea.Name)
			}
		}
	}
}
