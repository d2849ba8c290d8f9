package migrate

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// CheckFlags asks each manager binary the procedure runs whether it takes
// the user's flags: the binary parses them with --help, which starts
// nothing, and refuses an unknown flag or a value of the wrong type, hidden
// and deprecated flags judged exactly as the manager judges them. A refusal
// is an error; a binary not built yet, a warning that nothing was checked.
func (s Spec) CheckFlags(ctx context.Context, cacheDir string) lint.Findings {
	return CheckSideFlags(ctx, s.Sides(), cacheDir, func(component, arg string) (string, string) {
		// A flag of the user's manifest, not of --ccm-arg.
		if m := s.CCMManifest; m != nil && component == lmconfig.CCM && !slices.Contains(s.CCMArgs, arg) {
			return "--ccm-manifest " + m.Path, "remove it from the manifest: the simulated cloud's manager has the generic cloud-provider flags only, not your provider's own"
		}
		return argSource(component, arg)
	})
}

// argSource names where a manager's flag came from, and what to do when
// the binary refuses it: the --kcm-arg or --ccm-arg that gave it.
func argSource(component, _ string) (where, fix string) {
	return map[string]string{lmconfig.KCM: "--kcm-arg", lmconfig.CCM: "--ccm-arg"}[component],
		"give only flags " + component + " has (" + component + " --help), each as --name=value with a value of its type"
}

// CheckSideFlags is CheckFlags for the managers given; source names where
// a refused flag came from (nil: argSource).
func CheckSideFlags(ctx context.Context, sides []lint.Side, cacheDir string, source func(component, arg string) (where, fix string)) lint.Findings {
	if source == nil {
		source = argSource
	}
	seen := map[string]bool{}
	var out lint.Findings
	for _, sd := range sides {
		key := sd.Component + " " + sd.Version
		if len(sd.Args) == 0 || seen[key] {
			continue
		}
		seen[key] = true
		bin, err := nodeimage.ManagerBinary(cacheDir, sd.Version, sd.Component)
		if err != nil {
			where, _ := argSource(sd.Component, "")
			out = append(out, lint.Finding{Severity: lint.Warning, Where: where, Problem: "not checked: " + err.Error(), Fix: "build the images first; rehearse builds them, migrate needs them"})
			continue
		}
		for _, a := range sd.Args {
			if err := askBinary(ctx, bin, a); err != nil {
				where, fix := source(sd.Component, a)
				out = append(out, lint.Finding{Severity: lint.Error, Where: where, Problem: fmt.Sprintf("%s refuses %s: %v", key, a, err), Fix: fix})
			}
		}
	}
	return out
}

// askBinary has the binary parse one flag after --help: a flag it lacks, a
// value of the wrong type, or a bare flag that needs a value is an error;
// nothing starts. One flag at a time, so that no flag takes the next as its
// value.
func askBinary(ctx context.Context, bin, arg string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--help", arg)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return nil
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if msg, ok := strings.CutPrefix(line, "Error: "); ok {
			return fmt.Errorf("%s", msg)
		}
	}
	return err
}

// RequireFlags is CheckFlags for a run: any finding stops it, since a
// manager refusing its flags does not start and unchecked flags are a
// guess.
func (s Spec) RequireFlags(ctx context.Context, cacheDir string) error {
	fs := s.CheckFlags(ctx, cacheDir)
	if len(fs) == 0 {
		return nil
	}
	return fmt.Errorf("manager flags:\n%snothing was changed", fs)
}
