package ccmcontrollers

import (
	"fmt"
	"os"

	lmconfig "k8s.io/controller-manager/pkg/leadermigration/config"
	"k8s.io/klog/v2"

	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
)

// Behaviour is a provider's manager as the simulated one imitates it.
type Behaviour = behaviour.Behaviour

// Profile returns how the manager behaves, by its cloud-config's profile,
// and args as that provider's manager acts on them. A manager that
// ignores leader migration still reads and validates
// --leader-migration-config when the flag is on — cloud-provider-azure's
// options apply k8s.io/controller-manager's generic options, whose
// LeaderMigrationOptions.ApplyTo does, and a bad file stops it — and then
// runs as if neither flag was given.
func Profile(args []string) ([]string, Behaviour, error) {
	kept, b, name, lm, err := behaviour.Args(args)
	if err != nil || !b.IgnoresLeaderMigration {
		return kept, b, err
	}
	if lm.Enabled && lm.ConfigPath != "" {
		cfg, err := lmconfig.ReadLeaderMigrationConfiguration(lm.ConfigPath)
		if err != nil {
			return nil, b, err
		}
		if errs := lmconfig.ValidateLeaderMigrationConfiguration(cfg); len(errs) != 0 {
			return nil, b, fmt.Errorf("failed to parse leader migration configuration: %v", errs)
		}
	}
	if lm != (behaviour.LeaderMigration{}) {
		klog.InfoS("Leader-migration flags read and then unused, as this provider's manager has no leader-migration filter", "profile", name, "enabled", lm.Enabled, "config", lm.ConfigPath)
	}
	return kept, b, nil
}

// ipamOnByDefault is the profile's NodeIPAMOnByDefault, set by Setup for
// Controllers: the minors' mains call the two in turn, and 1.26's and
// 1.27's are built in modules of their own that this keeps unchanged.
var ipamOnByDefault bool

// Setup is what every minor's main does first: the command line as the
// imitated provider's manager acts on it, and the key of its node-IPAM
// controller (ipam, the minor's kube-controller-manager's name, unless the
// provider names it otherwise). A profile it cannot behave as, or a
// leader-migration file that provider's manager refuses, stops it.
func Setup(ipam string) ([]string, string) {
	args, b, err := Profile(os.Args[1:])
	if err != nil {
		klog.Fatalf("%v", err)
	}
	if b.NodeIPAM != "" {
		ipam = b.NodeIPAM
	}
	ipamOnByDefault = b.NodeIPAMOnByDefault
	return args, ipam
}
