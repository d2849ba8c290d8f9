package migrate

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/handover-sh/handover/clusters/nodeimage"
)

// CheckFlags asks each manager binary the procedure runs whether it takes
// the user's flags: the binary parses them with --help, which starts
// nothing, and refuses an unknown flag or a value of the wrong type, hidden
// and deprecated flags judged exactly as the manager judges them.
func (s Spec) CheckFlags(ctx context.Context, cacheDir string) error {
	seen := map[string]bool{}
	var errs []string
	for _, sd := range s.Sides() {
		key := sd.Component + " " + sd.Version
		if len(sd.Args) == 0 || seen[key] {
			continue
		}
		seen[key] = true
		bin, err := nodeimage.ManagerBinary(cacheDir, sd.Version, sd.Component)
		if err != nil {
			errs = append(errs, "cannot check the flags: "+err.Error())
			continue
		}
		if err := askBinary(ctx, bin, sd.Args); err != nil {
			errs = append(errs, fmt.Sprintf("%s refuses %s: %v", key, strings.Join(sd.Args, " "), err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("manager flags: %s", strings.Join(errs, "; "))
	}
	return nil
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
