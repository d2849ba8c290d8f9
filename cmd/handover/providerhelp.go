package main

import (
	"strings"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// providerHelp describes each of names as a --provider whose default is
// "" takes it: its name, whose code it runs and, for the default provider,
// that it is the default. Read from the registered providers when a
// command is made.
func providerHelp(names []string) string {
	each := make([]string, 0, len(names))
	for _, name := range names {
		p, err := providers.Lookup(name)
		if err != nil {
			continue
		}
		d := p.Runs().String() + runsAgainst[p.Runs()]
		if providers.IsDefault(name) {
			d += "; the default"
		}
		each = append(each, name+" ("+d+")")
	}
	return strings.Join(each, ", ")
}

// rehearsalProviders are the registered providers a rehearsal's cluster
// can be made for, in name order.
func rehearsalProviders() []string {
	var names []string
	for _, n := range providers.Names() {
		if cloudcluster.ValidateProvider(n) == nil {
			names = append(names, n)
		}
	}
	return names
}
