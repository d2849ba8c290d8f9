package migrate

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// BuiltInDefault, given for a side, is --enable-leader-migration with no
// file: the manager's built-in default configuration.
const BuiltInDefault = "default"

// UserConfig is a leader-migration configuration a user gives for one
// manager: a file, installed byte for byte, or the built-in default.
type UserConfig struct {
	Path   string           // as given; BuiltInDefault for no file
	Config *lmconfig.Config // nil for the built-in default
}

// ReadUserConfig reads a side's configuration as given: a file's path, or
// BuiltInDefault.
func ReadUserConfig(path string) (*UserConfig, error) {
	if path == BuiltInDefault {
		return &UserConfig{Path: path}, nil
	}
	c, err := lmconfig.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &UserConfig{Path: path, Config: c}, nil
}

// Sides a --leader-migration-config argument may name: kcm=FILE, ccm=FILE.
const (
	SideKCM = "kcm"
	SideCCM = "ccm"
)

// CutSide splits a --leader-migration-config argument. Only a side's name
// (kcm, ccm) before the first "=" is a side, and the rest is the path
// (kcm=a=b.yaml is kcm's a=b.yaml); anything else is a path as a whole,
// side "" (a=b.yaml is the file a=b.yaml).
func CutSide(arg string) (side, path string) {
	if s, p, ok := strings.Cut(arg, "="); ok && (s == SideKCM || s == SideCCM) {
		return s, p
	}
	return "", arg
}

// CutSides reads a flag's arguments into a path per side: kcm=FILE and
// ccm=FILE, and, when both is true, FILE alone for both sides. A side given
// twice is refused.
func CutSides(flag string, args []string, both bool) (map[string]string, error) {
	out := map[string]string{}
	for _, arg := range args {
		side, path := CutSide(arg)
		sides := []string{side}
		switch {
		case path == "" || (side == "" && !both):
			form := "kcm=FILE or ccm=FILE"
			if both {
				form = "kcm=FILE, ccm=FILE or FILE (both)"
			}
			return nil, fmt.Errorf("%s %s: write %s%s", flag, arg, form, SideHint(arg))
		case side == "":
			sides = []string{SideKCM, SideCCM}
		}
		for _, sd := range sides {
			if _, twice := out[sd]; twice {
				return nil, fmt.Errorf("%s %s: %s= is given twice: give each side once", flag, arg, sd)
			}
			out[sd] = path
		}
	}
	return out, nil
}

// SideHint says how an argument was read when it looks as if it named a
// side but does not: "" otherwise.
func SideHint(arg string) string {
	if side, _ := CutSide(arg); side != "" || !strings.Contains(arg, "=") {
		return ""
	}
	return fmt.Sprintf(" (only %s= and %s= name a side: %q is read as one path)", SideKCM, SideCCM, arg)
}

// SetUserConfigs reads --leader-migration-config arguments, kcm=FILE,
// ccm=FILE (FILE may be "default"), into the spec; a side given twice is an
// error.
func (s *Spec) SetUserConfigs(args []string) error {
	seen := map[string]bool{}
	for _, arg := range args {
		side, path := CutSide(arg)
		if side == "" || path == "" {
			return fmt.Errorf("--leader-migration-config %s: write kcm=FILE or ccm=FILE (FILE may be %q: no file, the built-in default)%s", arg, BuiltInDefault, SideHint(arg))
		}
		if seen[side] {
			return fmt.Errorf("--leader-migration-config %s: %s= is given twice: give each side once", arg, side)
		}
		seen[side] = true
		target := map[string]**UserConfig{SideKCM: &s.KCMConfig, SideCCM: &s.CCMConfig}[side]
		u, err := ReadUserConfig(path)
		if err != nil {
			return fmt.Errorf("--leader-migration-config %s: %w", arg, err)
		}
		*target = u
	}
	return nil
}

// ownConfigNote is a plan's note on handover's own configuration, or, when
// the user gave theirs, what is used instead.
func (s Spec) OwnConfigNote(own string) string {
	if s.KCMConfig == nil && s.CCMConfig == nil {
		return own
	}
	var given []string
	for _, u := range []struct {
		side string
		c    *UserConfig
	}{{"kube-controller-manager", s.KCMConfig}, {"cloud-controller-manager", s.CCMConfig}} {
		if u.c != nil {
			given = append(given, u.side+": "+u.c.Path)
		}
	}
	return "Your configuration, as given (" + strings.Join(given, "; ") + "; \"default\" is no file, the built-in default); the preflight lint says what the managers make of it. The lease RBAC the runbook omits is granted first."
}

// apply puts a user's configuration on a side of the setup.
func (u *UserConfig) apply(side *lint.Side) {
	if u == nil || side == nil {
		return
	}
	side.LeaderMigration, side.Config, side.ConfigPath = true, u.Config, ""
	if u.Config != nil {
		side.ConfigPath = u.Path
	}
}
