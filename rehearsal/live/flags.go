package live

import (
	"strings"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/providers"
)

// kubeadmKCM are the flags kubeadm gives every kube-controller-manager, as
// kind's kubeadm configuration sets them (cmd/kubeadm/app/phases/
// controlplane/manifests.go, getControllerManagerCommand; kind's
// enable-hostpath-provisioner): a rehearsal's kubeadm sets them too, so
// they are carried only with another value.
var kubeadmKCM = map[string]string{
	"controllers":                     "*,bootstrapsigner,tokencleaner",
	"leader-elect":                    "true",
	"use-service-account-credentials": "true",
	"allocate-node-cidrs":             "true",
	"enable-hostpath-provisioner":     "true",
}

// topologyFlags are the cluster's address ranges: a rehearsal's cluster
// has handover's own.
var topologyFlags = map[string]bool{
	"cluster-cidr": true, "service-cluster-ip-range": true,
	"node-cidr-mask-size": true, "node-cidr-mask-size-ipv4": true, "node-cidr-mask-size-ipv6": true,
}

// readIntoFields are the flags the rehearsal file carries in its own
// fields: name, provider and leaderMigration.
var readIntoFields = map[string]bool{"cluster-name": true, "cloud-provider": true, "enable-leader-migration": true, "leader-migration-config": true}

// side is each manager's side, as --cloud-config and
// --leader-migration-config name it.
var side = map[string]string{kcm: migrate.SideKCM, ccm: migrate.SideCCM}

// kept is a manager's flags a rehearsal carries, and the notes on those it
// leaves out: handover's own, the cluster's address ranges, files on the
// node, the cluster name (the rehearsal's name) and, for the
// kube-controller-manager, kubeadm's as kubeadm sets them.
func kept(manager string, flags []string) (out []string, dropped []string) {
	for _, f := range flags {
		name, value, _ := cmdline.Split(f)
		switch {
		case readIntoFields[name]:
		case name == "cloud-config":
			dropped = append(dropped, f+": a file on the node, never read (it may hold a secret): copy it beside the rehearsal file and set cloudConfig."+side[manager]+" to its name (for a provider whose own code reads one: --provider "+strings.Join(providers.NamesWith[providers.CloudConfigs](), " or ")+")")
		case migrate.OwnFlag(name) != "":
			dropped = append(dropped, f+": "+migrate.OwnFlag(name))
		case topologyFlags[name]:
			dropped = append(dropped, f+": the rehearsal's cluster has handover's own pod and service ranges")
		case strings.HasPrefix(value, "/"):
			dropped = append(dropped, f+": a file on the node; the rehearsal's nodes have their own")
		case manager == kcm && kubeadmKCM[name] == value:
		default:
			out = append(out, f)
		}
	}
	return out, dropped
}
