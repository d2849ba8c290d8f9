package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

// manager is the facts of the side's manager: the tables of
// managers.go, except for a cloud-controller-manager of another provider,
// whose controllers and handling of leader migration come from its
// profile (providers/profiles, read from that provider's source).
func (s Side) manager() (Manager, error) {
	if s.Component != lmconfig.CCM || providers.IsDefault(s.Provider) {
		return LookupManager(s.Component, s.Version)
	}
	p, err := profiles.Lookup(s.Provider, s.Version)
	if err != nil {
		return Manager{}, err
	}
	// Both managers of a minor take the built-in default configuration
	// from the same k8s.io/controller-manager; a manager without the
	// filter never uses it, so it is judged at any minor it has a
	// profile for.
	kcm, err := LookupManager(lmconfig.KCM, s.Version)
	if err != nil && p.CCM.LeaderMigration.Value {
		return Manager{}, fmt.Errorf("%s cloud-controller-manager %s: %w", s.Provider, s.Version, err)
	}
	return fromProfile(p, kcm.Default), nil
}

// fromProfile is a provider's cloud-controller-manager as the lint judges
// one: the names it starts its controllers under (what a leader-migration
// filter would compare), its aliases, and whether it has that filter.
func fromProfile(p profiles.Profile, defaults []string) Manager {
	m := Manager{
		Component:   lmconfig.CCM,
		Minor:       p.Minor,
		Provider:    p.Provider,
		Release:     p.Module,
		Controllers: slices.Clone(p.CCM.Controllers.Value),
		Default:     defaults,
		Disabled:    slices.Clone(p.CCM.Disabled.Value),
		Names:       map[string]string{},
		// A manager without the filter runs every controller under its
		// own lease, whatever a configuration says.
		IgnoresLeaderMigration: !p.CCM.LeaderMigration.Value,
	}
	if len(p.CCM.Aliases.Value) > 0 {
		m.Aliases = p.CCM.Aliases.Value
	}
	for _, key := range m.Controllers {
		c := canonicalOf(key)
		if key == p.CCM.NodeIPAM.Value {
			c = NodeIPAM
		}
		if c != key {
			m.Names[c] = key
		}
	}
	if len(m.Names) == 0 {
		m.Names = nil
	}
	return m
}

// canonicalOf is the canonical name of a controller key that is a
// canonical or a pre-1.28 short name; other keys are their own.
func canonicalOf(key string) string {
	for c, short := range shortNames {
		if key == short {
			return c
		}
	}
	return key
}

// lintIgnored judges a cloud-controller-manager without a leader-migration
// filter that is given --enable-leader-migration: it reads the flags and
// runs everything under its own lease. Started beside an in-tree
// kube-controller-manager, that is a double run (an error); started only
// after every one went external, the flags are merely pointless and the
// controllers stop in between (a warning).
func lintIgnored(s Side, m Manager) Findings {
	if s.Component != lmconfig.CCM || !m.IgnoresLeaderMigration || !s.LeaderMigration {
		return nil
	}
	what := fmt.Sprintf("the %s cloud-controller-manager %s (%s) reads --enable-leader-migration and --leader-migration-config and then uses neither: it has no leader-migration filter, so it starts %s under its own lease as soon as it leads",
		m.Provider, s.Version, m.Release, joinNames(m, Migratable))
	if s.AfterSwitch {
		return Findings{{Warning, s.Component + " --enable-leader-migration",
			what + "; it starts only after every kube-controller-manager went external, so nothing runs twice, and nothing runs in between",
			"expect a gap from the last in-tree kube-controller-manager to this manager's leader; the flags can go"}}
	}
	return Findings{{Error, s.Component + " --enable-leader-migration",
		what + ", while any kube-controller-manager with the in-tree provider still runs them: they run in both",
		"start this manager only after every kube-controller-manager runs without the in-tree provider (rke2, rke: --ccm-last; lint: --ccm-after-switch) and accept the gap; leader migration cannot hand the controllers over to it"}}
}

func joinNames(m Manager, canonical []string) string {
	var out []string
	for _, c := range canonical {
		if n := m.Name(c); m.Runs(n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}
