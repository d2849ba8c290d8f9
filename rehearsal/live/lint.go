package live

import (
	"fmt"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers"
)

// Sides are the cluster's managers as the lint judges its next step: the
// kube-controller-manager as it runs, at the cluster's version, with
// leader migration on (the procedure's first step), and the
// cloud-controller-manager at to, each with the flags it runs with and
// the leader-migration file the API showed. A side whose file the API
// cannot show takes the built-in default, and the returned notes say so;
// a cluster with no cloud-controller-manager yet gives the kcm side alone.
// given are the user's files by side (kcm, ccm), read instead of the
// cluster's; one for a side the cluster does not run is refused.
func (d *Description) Sides(to string, given map[string]*lmconfig.Config) ([]lint.Side, []string, error) {
	c := d.File.Config
	var notes []string
	var sides []lint.Side
	for _, side := range []struct{ name, component, version string }{
		{migrate.SideKCM, lmconfig.KCM, c.From}, {migrate.SideCCM, lmconfig.CCM, to},
	} {
		flags := d.flags[side.name]
		if side.name == migrate.SideCCM && len(flags) == 0 {
			if given[side.name] != nil {
				return nil, nil, fmt.Errorf("--leader-migration-config ccm=FILE: no cloud-controller-manager runs in the cluster to read it; lint the file without --kubeconfig (handover lint --leader-migration-config ccm=FILE --to %s)", to)
			}
			notes = append(notes, "no cloud-controller-manager runs yet: the kube-controller-manager is judged alone (lint the one you will deploy without --kubeconfig)")
			continue
		}
		// The fields the lint reads from the flags, as it reads them.
		s := lint.Side{Component: side.component, Version: side.version, LeaderMigration: true, Args: flags}.WithArgs()
		s.CloudProvider, _ = cmdline.Value(flags, "cloud-provider")
		if side.name == migrate.SideCCM {
			s.Provider = providers.ProfileName(c.Provider)
		}
		content, read := d.lmFiles[side.name]
		on, _ := cmdline.Value(flags, "enable-leader-migration")
		switch {
		case given[side.name] != nil:
			s.Config, s.ConfigPath = given[side.name], "--leader-migration-config "+side.name
		case !read && on != "true":
			notes = append(notes, fmt.Sprintf("%s runs without leader migration: judged with it on (the procedure turns it on), with the built-in default (give the file you will use with --leader-migration-config %s=FILE)", side.component, side.name))
		case !read:
			notes = append(notes, fmt.Sprintf("%s's leader-migration configuration is not one the API shows: judged with the built-in default (give the file with --leader-migration-config %s=FILE)", side.component, side.name))
		case content != "":
			cfg, err := lmconfig.Parse([]byte(content))
			if err != nil {
				return nil, nil, fmt.Errorf("%s's leader-migration configuration: %w", side.component, err)
			}
			s.Config, s.ConfigPath = cfg, d.lmFrom[side.name]
		}
		sides = append(sides, s)
	}
	return sides, notes, nil
}
