package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// lintPairs compares every kube-controller-manager that runs cloud
// controllers with every cloud-controller-manager: the two must share one
// migration lock and agree on what migrates, or a controller runs twice.
func lintPairs(sides []Side) Findings {
	var out Findings
	for _, k := range sides {
		out = append(out, outsideLock(k, sides)...)
	}
	out = append(out, twoAllocators(sides)...)
	for _, k := range sides {
		if k.Component != lmconfig.KCM || !k.runsCloudControllers() {
			continue
		}
		for _, c := range sides {
			if c.Component != lmconfig.CCM {
				continue
			}
			out = append(out, lintFlagPair(k, c)...)
			out = append(out, lintCloudConfigPair(k, c)...)
			cm, err := c.manager()
			switch {
			case c.AfterSwitch:
				// Never beside this manager: nothing to hand over.
			case err == nil && cm.IgnoresLeaderMigration && c.LeaderMigration:
				// lintIgnored says what follows.
			default:
				out = append(out, lintPair(k, c)...)
			}
		}
	}
	return out
}

func lintPair(k, c Side) Findings {
	if !k.LeaderMigration || !c.LeaderMigration {
		both := bothRun(k, c)
		if len(both) == 0 {
			// KubeOne's way: --controllers keeps the cloud loops out of
			// kube-controller-manager, so nothing needs handing over.
			return nil
		}
		off := k
		if k.LeaderMigration {
			off = c
		}
		return Findings{{Error, off.Component + " --enable-leader-migration",
			fmt.Sprintf("is off while kube-controller-manager %s and cloud-controller-manager %s both start %s: both managers run them at once", k.Version, c.Version, strings.Join(both, ", ")),
			"enable leader migration on both managers for as long as both run, or keep the cloud loops out of kube-controller-manager (--controllers=*,bootstrapsigner,tokencleaner,-cloud-node-lifecycle,-route,-service) before the cloud-controller-manager starts"}}
	}
	kc, cc := effective(k), effective(c)
	if kc == nil || cc == nil {
		return nil
	}
	var out Findings
	if kc.LeaderName != cc.LeaderName {
		out = append(out, Finding{Error, c.where("leaderName"),
			fmt.Sprintf("%q differs from kube-controller-manager's %q: the managers take different migration leases and both run the migrated controllers", cc.LeaderName, kc.LeaderName),
			"use the same leaderName on both sides"})
	}
	if kc.ResourceLock != cc.ResourceLock {
		out = append(out, Finding{Error, c.where("resourceLock"),
			fmt.Sprintf("%q differs from kube-controller-manager's %q", cc.ResourceLock, kc.ResourceLock), "use resourceLock: leases on both sides"})
	}
	out = append(out, oneSided(k, c, kc, cc)...)
	out = append(out, oneSided(c, k, cc, kc)...)
	return append(out, unlisted(k, c)...)
}

// bothRun are the cloud controllers (canonical names) that both a
// kube-controller-manager with an in-tree provider and a
// cloud-controller-manager start; unknown versions count as all.
func bothRun(k, c Side) []string {
	km, kerr := k.manager()
	cm, cerr := c.manager()
	if kerr != nil || cerr != nil {
		return slices.Clone(Migratable)
	}
	var out []string
	for _, ctl := range Migratable {
		kn, cn := km.Name(ctl), cm.Name(ctl)
		if km.Runs(kn) && cm.Runs(cn) && k.runs(km, kn) && c.runs(cm, cn) {
			out = append(out, ctl)
		}
	}
	return out
}

// unlisted flags a cloud controller both managers run that neither file
// names at all, under any manager's name: each runs it on its own main
// lease. (A name only the other version compares is lintLeader's error; a
// controller one side covers, oneSided's; the built-in default,
// lintDefault's.)
func unlisted(k, c Side) Findings {
	km, kerr := k.manager()
	cm, cerr := c.manager()
	if kerr != nil || cerr != nil || k.Config == nil || c.Config == nil {
		return nil
	}
	var out Findings
	for _, ctl := range bothRun(k, c) {
		kn, cn := km.Name(ctl), cm.Name(ctl)
		if names(km, k.Config, ctl) || names(cm, c.Config, ctl) {
			continue
		}
		out = append(out, Finding{Error, k.where("controllerLeaders"),
			fmt.Sprintf("%s is in neither configuration (kube-controller-manager %s names it %s, cloud-controller-manager %s names it %s): each manager runs it on its own main lease, so it runs in both", ctl, k.Version, kn, c.Version, cn),
			fmt.Sprintf("list it in both configurations: name: %s in kube-controller-manager's, name: %s in cloud-controller-manager's", kn, cn)})
	}
	return out
}

// names reports whether some entry of cfg stands for controller ctl.
func names(m Manager, cfg *lmconfig.Config, ctl string) bool {
	for _, l := range cfg.ControllerLeaders {
		if stands(m, l.Name) == ctl {
			return true
		}
	}
	return false
}

// oneSided flags controllers a migrates but b runs on its main lock; each
// names them its own way (1.27 and 1.28 differ).
func oneSided(a, b Side, ac, bc *lmconfig.Config) Findings {
	am, aerr := a.manager()
	m, err := b.manager()
	if aerr != nil || err != nil {
		return nil
	}
	var out Findings
	for i, l := range ac.ControllerLeaders {
		if !am.Runs(l.Name) {
			// a's filter never compares the entry: a migrates nothing
			// by it (lintLeader judges it).
			continue
		}
		theirs := m.Name(am.Canonical(l.Name))
		if bc.Owner(theirs) != "" || !m.Runs(theirs) {
			continue
		}
		out = append(out, Finding{Error, a.where(fmt.Sprintf("controllerLeaders[%d].name", i)),
			fmt.Sprintf("%s is migrated by %s but missing from %s's configuration%s, which then runs it on its main lease: it runs in both", l.Name, a.Component, b.Component, namedThere(l.Name, theirs)),
			"list the same controllers in both configurations"})
	}
	return out
}

// effective is the configuration a side runs with, the default included.
func effective(s Side) *lmconfig.Config {
	if s.Config != nil {
		return s.Config
	}
	m, err := s.manager()
	if err != nil {
		return nil
	}
	return lmconfig.New(lmconfig.Wildcard, m.Default...)
}

// outsideLock flags a kube-controller-manager without leader migration
// that runs a controller a cloud-controller-manager migrates: the upstream
// doc's --controllers=*,-nodeipam on the N+1 kube-controller-manager.
func outsideLock(k Side, sides []Side) Findings {
	if k.Component != lmconfig.KCM || k.LeaderMigration {
		return nil
	}
	m, err := k.manager()
	if err != nil {
		return nil
	}
	var out Findings
	for _, c := range sides {
		cm, err := c.manager()
		cfg := effective(c)
		if err != nil || c.Component != lmconfig.CCM || !c.LeaderMigration || cfg == nil || cfg.Owner(cm.Name(NodeIPAM)) == "" {
			continue
		}
		if own := m.Name(NodeIPAM); k.runs(m, own) {
			out = append(out, Finding{Error, "kube-controller-manager " + k.Version + " --controllers",
				"runs " + own + " on its main lease (--allocate-node-cidrs) while cloud-controller-manager migrates it: both allocate pod ranges",
				"start the N+1 kube-controller-manager with --controllers=*,bootstrapsigner,tokencleaner,-" + own})
		}
	}
	return out
}

// twoAllocators flags a cloud-controller-manager with no leader-migration
// filter that starts its node IPAM (a provider's manager that disables
// nothing, with --allocate-node-cidrs) while a kube-controller-manager of
// the roll allocates too: two allocators on one cluster CIDR, outside any
// lock. A warning: which ranges collide depends on the allocators.
func twoAllocators(sides []Side) Findings {
	var out Findings
	for _, c := range sides {
		cm, err := c.manager()
		if err != nil || c.Component != lmconfig.CCM || !cm.IgnoresLeaderMigration || !c.runs(cm, cm.Name(NodeIPAM)) {
			continue
		}
		for _, k := range sides {
			m, err := k.manager()
			if err != nil || k.Component != lmconfig.KCM || !k.runs(m, m.Name(NodeIPAM)) {
				continue
			}
			out = append(out, Finding{Warning, "cloud-controller-manager --allocate-node-cidrs",
				fmt.Sprintf("the %s cloud-controller-manager %s starts %s whenever it is set (it disables nothing by default and has no leader-migration filter) while kube-controller-manager %s runs %s: two node IPAM allocators on one cluster CIDR",
					c.Provider, c.Version, cm.Name(NodeIPAM), k.Version, m.Name(NodeIPAM)),
				"give node IPAM to one manager: --allocate-node-cidrs=false here (Azure's chart: cloudControllerManager.allocateNodeCidrs=false), or on kube-controller-manager once this manager allocates"})
			break
		}
	}
	return out
}

// namedThere says how the other manager names a controller, if otherwise.
func namedThere(ours, theirs string) string {
	if ours == theirs {
		return ""
	}
	return " (as " + theirs + ")"
}
