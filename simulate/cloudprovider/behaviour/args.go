package behaviour

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// LeaderMigration is what a manager's command line asks of leader
// migration: --enable-leader-migration and --leader-migration-config.
type LeaderMigration struct {
	Enabled    bool
	ConfigPath string
}

// Args is a manager's command line as the behaviour named by its
// --cloud-config file's profile acts on it: for a manager that ignores
// leader migration, the two leader-migration flags are taken out (after
// the caller has checked the file as that manager does) and returned
// apart. It reads nothing but the cloud-config.
func Args(args []string) (kept []string, b Behaviour, name string, lm LeaderMigration, err error) {
	name, err = profileOf(args)
	if err != nil {
		return nil, Behaviour{}, "", LeaderMigration{}, err
	}
	b, err = Lookup(name)
	if err != nil {
		return nil, Behaviour{}, "", LeaderMigration{}, fmt.Errorf("cloud-config profile: %w", err)
	}
	if !b.IgnoresLeaderMigration {
		return args, b, name, LeaderMigration{}, nil
	}
	for i := 0; i < len(args); i++ {
		flag, value, hasValue := strings.Cut(args[i], "=")
		switch normal(flag) {
		case "--enable-leader-migration":
			// As pflag reads a bool flag; a value it refuses stops the
			// manager before this matters.
			on, _ := strconv.ParseBool(value)
			lm.Enabled = !hasValue || on
		case "--leader-migration-config":
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			lm.ConfigPath = value
		default:
			kept = append(kept, args[i])
		}
	}
	return kept, b, name, lm, nil
}

// normal spells a flag name as pflag compares it: the managers normalise
// "_" to "-".
func normal(flag string) string { return strings.ReplaceAll(flag, "_", "-") }

// profileOf is the profile of the cloud-config file --cloud-config names;
// "" without one, or when it cannot be opened (the manager then refuses to
// start, saying why).
func profileOf(args []string) (string, error) {
	path := ""
	for i, a := range args {
		flag, value, hasValue := strings.Cut(a, "=")
		if normal(flag) != "--cloud-config" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		path = value
	}
	if path == "" {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	var cfg struct {
		Profile string `json:"profile"`
	}
	if err := json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&cfg); err != nil {
		return "", fmt.Errorf("reading the cloud-config %s: %w", path, err)
	}
	return cfg.Profile, nil
}
