package migrate

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
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
	return CheckSideFlags(ctx, s.Sides(), cacheDir)
}

// CheckSideFlags is CheckFlags for the managers given.
func CheckSideFlags(ctx context.Context, sides []lint.Side, cacheDir string) lint.Findings {
	seen := map[string]bool{}
	var out lint.Findings
	for _, sd := range sides {
		key := sd.Component + " " + sd.Version
		if len(sd.Args) == 0 || seen[key] {
			continue
		}
		seen[key] = true
		where := map[string]string{lmconfig.KCM: "--kcm-arg", lmconfig.CCM: "--ccm-arg"}[sd.Component]
		bin, err := nodeimage.ManagerBinary(cacheDir, sd.Version, sd.Component)
		if err != nil {
			out = append(out, lint.Finding{Severity: lint.Warning, Where: where, Problem: "not checked: " + err.Error(), Fix: "rehearse and migrate check them first"})
			continue
		}
		if err := askBinary(ctx, bin, sd.Args); err != nil {
			out = append(out, lint.Finding{Severity: lint.Error, Where: where,
				Problem: fmt.Sprintf("%s refuses %s: %v", key, strings.Join(sd.Args, " "), err),
				Fix:     "give only flags " + key + " has (" + sd.Component + " --help), with values of their type"})
		}
	}
	return out
}

// RequireFlags is CheckFlags for a run: any finding stops it, since a
// manager refusing its flags does not start.
func (s Spec) RequireFlags(ctx context.Context, cacheDir string) error {
	fs := s.CheckFlags(ctx, cacheDir)
	if len(fs) == 0 {
		return nil
	}
	return fmt.Errorf("manager flags:\n%snothing was changed", fs)
}

func askBinary(ctx context.Context, bin string, args []string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(append([]string{}, args...), "--help")...)
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
