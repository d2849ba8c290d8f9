package ccmbase

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/klog/v2"

	"github.com/handover-sh/handover/simulate/cloud/behaviour"
	"github.com/handover-sh/handover/simulate/cloud/provider"
)

// Behaviour is a provider's manager as the simulated one imitates it.
type Behaviour = behaviour.Behaviour

// leaderMigrationFlags are the flags a manager without the filter accepts
// and ignores.
var leaderMigrationFlags = []string{"--enable-leader-migration", "--leader-migration-config"}

// Profile reads the cluster's cloud-config named by --cloud-config in args
// and returns how the manager behaves, with args as that provider's
// manager would act on them: the leader-migration flags dropped (after
// saying so) where it ignores them.
func Profile(args []string) ([]string, Behaviour, error) {
	name, err := profileOf(args)
	if err != nil {
		return nil, Behaviour{}, err
	}
	b, ok := behaviour.Of[name]
	if !ok {
		return nil, Behaviour{}, fmt.Errorf("cloud-config profile %q: this manager can behave as none of it", name)
	}
	if !b.IgnoresLeaderMigration {
		return args, b, nil
	}
	var kept, dropped []string
	for i := 0; i < len(args); i++ {
		flag, _, hasValue := strings.Cut(args[i], "=")
		switch {
		case flag == leaderMigrationFlags[0]:
			dropped = append(dropped, args[i])
		case flag == leaderMigrationFlags[1]:
			dropped = append(dropped, args[i])
			if !hasValue && i+1 < len(args) {
				i++
				dropped = append(dropped, args[i])
			}
		default:
			kept = append(kept, args[i])
		}
	}
	if len(dropped) > 0 {
		klog.InfoS("Leader-migration flags accepted and ignored, as this provider's manager has no leader-migration filter", "profile", name, "flags", dropped)
	}
	return kept, b, nil
}

// profileOf is the profile of the cloud-config file --cloud-config names;
// "" without one (the app then refuses to start, saying why).
func profileOf(args []string) (string, error) {
	path := ""
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--cloud-config="); ok {
			path = v
		} else if a == "--cloud-config" && i+1 < len(args) {
			path = args[i+1]
		}
	}
	if path == "" {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		// The app reports an unreadable --cloud-config itself.
		return "", nil
	}
	defer f.Close()
	var cfg provider.Config
	if err := json.NewDecoder(f).Decode(&cfg); err != nil {
		return "", fmt.Errorf("reading the cloud-config %s: %w", path, err)
	}
	return cfg.Profile, nil
}
