package rehearsal

import (
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/reports"
)

// About is what the reports of a run of s say it was, judged by the
// handover of version handover: its procedure, versions and provider.
func About(s migrate.Spec, handover string) reports.About {
	return reports.About{Handover: handover, Procedure: s.Procedure, From: s.From, To: s.To, Provider: providerName(s.CloudProfile)}
}

// About is what a rehearsal of c is, before it is validated: a run that
// stops on its input still reports what it was asked to rehearse.
func (c Config) About(handover string) reports.About {
	return c.like(reports.About{Handover: handover, Procedure: c.Procedure, From: c.From, To: c.To, Provider: providerName(c.Provider)})
}

// like adds to a what c approximated of a cluster's file (rehearse --like).
func (c Config) like(a reports.About) reports.About {
	a.Like, a.Approximated = c.Like, c.Approximated
	return a
}

// providerName names the default provider ("") by its name.
func providerName(profile string) string {
	if providers.IsDefault(profile) {
		return providers.Default().Name()
	}
	return profile
}
