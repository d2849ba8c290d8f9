package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/migrate"
)

// flagIdea is one idea that flags of several commands carry, under one
// name on every command (kubectl's --namespace, kind's --name): a user
// who learnt it on one command need not guess it on the next. Where names
// differed, rehearse's won, being the command handover exists for.
type flagIdea struct {
	Idea string // what the flag means, as docs/commands.md says it
	Name string // its one name
	// Default is what every command defaults it to, where all share one
	// ("": the commands' defaults differ on purpose).
	Default string
	// Was maps a name the idea had on one command (a path below the root)
	// to it: there it is still accepted, hidden from --help, and warned of
	// (addFormerNames).
	Was map[string]string
	// Also are other spellings of the idea, which no command may show.
	Also []string
}

// flagIdeas is the table docs/commands.md prints ("One name per idea").
var flagIdeas = []flagIdea{
	{Idea: "the cluster a command works on", Name: "name", Default: topology.DefaultName, Also: []string{"cluster", "cluster-name"}},
	{Idea: "the directory of the timeline and the reports", Name: "out", Was: map[string]string{"report-dir": "migrate"}, Also: []string{"output", "output-dir"}},
	{Idea: "keep the cluster afterwards, also when it failed (kind's --retain)", Name: "keep", Was: map[string]string{"retain": "cluster create"}},
	{Idea: "Kubernetes version N: kube-controller-manager with the in-tree provider", Name: "from", Default: migrate.DefaultSpec("").From,
		Was: map[string]string{"kcm-version": "lint"}},
	{Idea: "Kubernetes version N+1: cloud-controller-manager", Name: "to", Default: migrate.DefaultSpec("").To,
		Was: map[string]string{"ccm-version": "lint"}},
	{Idea: "the provider whose code or profile the managers run", Name: "provider", Was: map[string]string{"ccm-provider": "lint"},
		Also: []string{"cloud-provider"}},
	{Idea: "how the cloud-controller-manager runs (static-pod, daemonset, deployment)", Name: "ccm-form", Was: map[string]string{"ccm": "cluster create"}},
}

// keptNames are flags that keep another spelling of an idea for now, by
// command and flag, each with why.
var keptNames = map[string]string{
	"simcloud serve --cluster": "the simulated cloud's server is started by simulate/cloudcluster, which finds it among the host's processes by that command line (simcloud serve --cluster NAME): the name changes there first",
}

// addFormerNames gives each command the names its flags had before, as
// flags sharing the renamed flag's value: hidden from --help, and warned
// of on use ("Flag --retain has been deprecated, use --keep instead").
func addFormerNames(root *cobra.Command) {
	for _, idea := range flagIdeas {
		for former, path := range idea.Was {
			c, _, err := root.Find(strings.Fields(path))
			if err != nil || c.CommandPath() != root.Name()+" "+path {
				continue // the table's test names it
			}
			if f := c.Flags().Lookup(idea.Name); f != nil {
				alias := *f
				alias.Name, alias.Shorthand = former, ""
				alias.Usage = "former name of --" + idea.Name
				alias.Deprecated = "use --" + idea.Name + " instead"
				alias.Hidden, alias.Annotations = true, nil // not required, as the flag may be
				c.Flags().AddFlag(&alias)
			}
		}
	}
}
