package main

import (
	"slices"
	"strings"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/migrate"
)

// procsWith names the procedures whose registration has, sorted: "rke,
// rke2". Help texts take the procedures a flag applies to from here, so a
// procedure registered with it is named at once.
func procsWith(has func(migrate.Registration) bool) string {
	var out []string
	for _, name := range migrate.Names() {
		if r, err := migrate.Lookup(name); err == nil && has(r) {
			out = append(out, name)
		}
	}
	return strings.Join(out, ", ")
}

// variantHelp is a variant flag's help: the procedures that accept it,
// then what it does.
func variantHelp(has func(migrate.Variant) bool, what string) string {
	return procsWith(func(r migrate.Registration) bool { return has(r.Variants) }) + ": " + what
}

func inPlaceHelp() string {
	return variantHelp(func(v migrate.Variant) bool { return v.InPlace }, "upgrade each control plane's static pods in place instead of replacing nodes")
}

func rollbackHelp(what string) string {
	return variantHelp(func(v migrate.Variant) bool { return v.Rollback }, what)
}

func disableHelp() string {
	return variantHelp(func(v migrate.Variant) bool { return v.Disable }, "remove leader migration once the controllers run in cloud-controller-manager (with --rollback: the forward run removed it, and it is re-enabled first)")
}

func ccmLastHelp() string {
	return variantHelp(func(v migrate.Variant) bool { return v.CCMLast },
		"deploy the cloud-controller-manager only after every kube-controller-manager went external — safe with a manager that ignores leader migration (--provider azure), at the cost of a gap")
}

// ccmManifestHelp names the procedures that run a chart's manager, whose
// manifest the user's replaces.
func ccmManifestHelp() string {
	charted := procsWith(func(r migrate.Registration) bool { return slices.Contains(r.Managers.CCMForms, managers.DaemonSet) })
	return "your own cloud-controller-manager manifest (helm template output; " + charted +
		"): its DaemonSet or Deployment is kept, with the simulated cloud's manager swapped in (plan lists each change)"
}
