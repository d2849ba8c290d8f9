package migrate

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/providers"
)

// CloudConfigFile is a user's cloud-config for one side, as given.
type CloudConfigFile struct {
	Path, Text string
}

// SetCloudConfigs reads --cloud-config arguments: kcm=FILE (the in-tree
// provider's: kube-controller-manager N and its kubelets), ccm=FILE (the
// cloud-controller-manager's), or FILE for both, as a cluster whose
// managers share one file has it.
func (s *Spec) SetCloudConfigs(args []string) error {
	paths, err := CutSides("--cloud-config", args, true)
	if err != nil {
		return err
	}
	for side, path := range paths {
		raw, err := boundedfile.Read(path, boundedfile.ConfigLimit)
		if err != nil {
			return fmt.Errorf("--cloud-config %s=%s: %w%s", side, path, err, SideHint(path))
		}
		f := &CloudConfigFile{Path: path, Text: string(raw)}
		if side == SideKCM {
			s.KCMCloudConfig = f
		} else {
			s.CCMCloudConfig = f
		}
	}
	return nil
}

// validCloudConfigs: a user's cloud-config is read by a provider's own
// code, one whose provider reads cloud-configs; the default provider's is
// handover's.
func (s Spec) validCloudConfigs() []string {
	if s.KCMCloudConfig == nil && s.CCMCloudConfig == nil {
		return nil
	}
	if !s.OwnCode() {
		return []string{fmt.Sprintf("--cloud-config is read by a provider's own code: give --provider %s (the %s provider's cloud-config is handover's own)",
			strings.Join(providers.NamesWith[providers.CloudConfigs](), " or "), providers.Default().Name())}
	}
	var errs []string
	for _, side := range []string{SideKCM, SideCCM} {
		if f, c := s.cloudConfigFile(side), s.codeOf(side); f != nil {
			if _, ok := providers.CloudConfigsOf(c); !ok {
				errs = append(errs, fmt.Sprintf("--cloud-config %s=%s: handover cannot read %q's cloud-config (it reads %s)", side, f.Path, c, strings.Join(providers.CloudConfigCodes(), ", ")))
			}
		}
	}
	return errs
}

// cloudConfigFile is the user's file for a side, nil when none was given.
func (s Spec) cloudConfigFile(side string) *CloudConfigFile {
	if side == SideKCM {
		return s.KCMCloudConfig
	}
	return s.CCMCloudConfig
}

// RehearsableCloudConfigs: a rehearsal, forced past the lint, cannot run a
// manager with a file its provider refuses (it would not start): it says
// so before anything is made.
func (s Spec) RehearsableCloudConfigs() error {
	for _, side := range []string{SideKCM, SideCCM} {
		c := s.lintCloudConfig(side)
		if c == nil {
			continue
		}
		if _, _, err := carry(*c); err != nil {
			return fmt.Errorf("--cloud-config %s=%s: %s refuses it (%v): its manager would not start, which a rehearsal cannot run; the lint says what to change", side, c.Path, c.Code, err)
		}
	}
	return nil
}

// codeOf is the provider code that reads a side's cloud-config.
func (s Spec) codeOf(side string) string {
	coded, ok := providers.As[providers.Coded](s.running())
	switch {
	case !ok:
		return ""
	case side == SideKCM:
		return coded.InTreeCode(s.From)
	}
	return coded.CCMCode(s.ccmVersion())
}

// lintCloudConfig is a side's cloud-config for the lint, nil when handover's
// own is used.
func (s Spec) lintCloudConfig(side string) *lint.CloudConfig {
	f := s.cloudConfigFile(side)
	if f == nil || !s.OwnCode() {
		return nil
	}
	return &lint.CloudConfig{Path: f.Path, Text: f.Text, Code: s.codeOf(side)}
}

// CarriedCloudConfig is what a rehearsal runs a side with: the variables
// it carries, and those it leaves, with why. ok is false when the side
// has no file of the user's, or one its provider refuses (the lint says
// why; RehearsableCloudConfigs stops a rehearsal on it).
func (s Spec) CarriedCloudConfig(side string) (vars [][2]string, left []providers.LeftOut, ok bool) {
	c := s.lintCloudConfig(side)
	if c == nil {
		return nil, nil, false
	}
	vars, left, err := carry(*c)
	return vars, left, err == nil
}

// carry is c as the provider whose code reads it carries it into a
// rehearsal, or why it cannot.
func carry(c lint.CloudConfig) ([][2]string, []providers.LeftOut, error) {
	owner, ok := providers.CloudConfigsOf(c.Code)
	if !ok {
		return nil, nil, fmt.Errorf("handover reads no cloud-config of %s", c.Code)
	}
	return owner.CarryCloudConfig(providers.CloudConfigInput{Path: c.Path, Text: c.Text, Code: c.Code})
}

// writeCloudConfigs tells, for each side given a cloud-config of the
// user's, which variables a rehearsal runs with and which it leaves.
func writeCloudConfigs(b *strings.Builder, s Spec) {
	for _, sd := range []struct{ side, who string }{{SideKCM, "kube-controller-manager " + s.From + " and its kubelets"}, {SideCCM, "cloud-controller-manager"}} {
		c := s.lintCloudConfig(sd.side)
		if c == nil {
			continue
		}
		fmt.Fprintf(b, "cloud-config (%s, read as %s reads it): %s\n", sd.who, c.Code, c.Path)
		vars, left, ok := s.CarriedCloudConfig(sd.side)
		if !ok {
			b.WriteString("    not readable: the preflight lint says why\n")
			continue
		}
		var with []string
		for _, v := range vars {
			with = append(with, v[0]+" = "+v[1])
		}
		if len(with) == 0 {
			with = []string{"none of its variables"}
		}
		fmt.Fprintf(b, "    a rehearsal runs with: %s\n", strings.Join(with, "; "))
		for _, l := range left {
			fmt.Fprintf(b, "    left out: %s = %s (%s)\n", l.Name, l.Value, l.Why)
		}
	}
}
