// Package matrix is the version matrix as data: every pair of versions
// handover builds × the leader-migration configurations × the providers
// whose manager the simulated one imitates where that provider has an
// in-tree side. Its rows are grouped in shards, one per version pair (a
// shard builds its pair's node images), so that a CI system can run each
// shard as a job of its own and merge the verdict tables afterwards
// (`handover matrix --list`, `handover report merge`).
package matrix

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/rehearsal"
)

// Configuration is a leader-migration configuration each pair is
// rehearsed with: files by side, relative to the repository's root, or
// "default" for the built-in default.
type Configuration struct {
	Name  string
	Files map[string]string
}

// Configurations are handover's own (each manager's own names), the task
// doc's files as printed, and the managers' built-in default.
var Configurations = []Configuration{
	{"canonical", nil},
	{"verbatim", map[string]string{"kcm": "examples/taskdoc-verbatim/kcm.yaml", "ccm": "examples/taskdoc-verbatim/ccm.yaml"}},
	{"default", map[string]string{"kcm": "default", "ccm": "default"}},
}

// Row is one rehearsal of the matrix.
type Row struct {
	From, To string
	Config   Configuration
	// Provider is the provider the simulated manager imitates; "" is
	// upstream's.
	Provider string `json:",omitempty"`
}

// Name is the row's cluster and report name: mx-129-130-canonical, with
// -azure for a provider.
func (r Row) Name() string {
	n := "mx-" + short(r.From) + "-" + short(r.To) + "-" + r.Config.Name
	if r.Provider != "" {
		n += "-" + r.Provider
	}
	return n
}

// Rehearsal is base with the row's versions, configuration (files
// relative to root, the repository) and provider.
func (r Row) Rehearsal(base rehearsal.Config, root string) rehearsal.Config {
	c := base
	c.From, c.To, c.Provider = r.From, r.To, r.Provider
	c.LeaderMigration = nil
	if r.Config.Files != nil {
		c.LeaderMigration = map[string]string{}
		for side, f := range r.Config.Files {
			if f != "default" {
				f = filepath.Join(root, filepath.FromSlash(f))
			}
			c.LeaderMigration[side] = f
		}
	}
	return c
}

// Shard is the rows of one version pair.
type Shard struct {
	Name     string `json:"name"`
	From, To string
	Rows     []Row
}

// Shards are the matrix, one shard per pair handover builds.
func Shards() []Shard {
	var out []Shard
	for _, pair := range nodeimage.Pairs() {
		from, to, _ := strings.Cut(pair, " → ")
		sh := Shard{Name: short(from) + "-" + short(to), From: from, To: to}
		for _, provider := range providersFor(from, to) {
			for _, c := range Configurations {
				sh.Rows = append(sh.Rows, Row{From: from, To: to, Config: c, Provider: provider})
			}
		}
		out = append(out, sh)
	}
	return out
}

// providersFor are upstream's manager ("") and every provider the
// simulated manager imitates whose profile has the provider in tree at
// from and a manager at to.
func providersFor(from, to string) []string {
	out := []string{""}
	for _, p := range providers.All() {
		if p.Runs() != providers.Imitated {
			continue
		}
		n, nerr := profiles.Lookup(providers.ProfileName(p.Name()), from)
		_, terr := profiles.Lookup(providers.ProfileName(p.Name()), to)
		if nerr == nil && terr == nil && n.InTree.Value {
			out = append(out, p.Name())
		}
	}
	return out
}

// Lookup finds a shard by name.
func Lookup(name string) (Shard, error) {
	var names []string
	for _, sh := range Shards() {
		if sh.Name == name {
			return sh, nil
		}
		names = append(names, sh.Name)
	}
	return Shard{}, fmt.Errorf("no matrix shard %q (shards: %s)", name, strings.Join(names, ", "))
}

// short is "129" for "v1.29.15".
func short(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + parts[1]
}
