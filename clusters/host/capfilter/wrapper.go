package capfilter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// RuntimeEnv names the environment variable that overrides which runc the
// wrapper hands over to.
const RuntimeEnv = "HANDOVER_REAL_RUNC"

// runcCandidates are where Debian and most distributions install runc.
var runcCandidates = []string{"/usr/sbin/runc", "/usr/bin/runc", "/usr/local/sbin/runc", "/usr/local/bin/runc"}

// FindRuntime returns the real runc to exec, never the wrapper itself.
func FindRuntime(self string) (string, error) {
	if p := os.Getenv(RuntimeEnv); p != "" {
		return p, nil
	}
	selfReal, _ := filepath.EvalSymlinks(self)
	for _, c := range runcCandidates {
		real, err := filepath.EvalSymlinks(c)
		if err != nil || real == selfReal {
			continue
		}
		return c, nil
	}
	return "", fmt.Errorf("no runc found in %v (set %s)", runcCandidates, RuntimeEnv)
}

// Prepare filters the spec files the invocation refers to.
func Prepare(inv Invocation, allowed Set) error {
	switch {
	case inv.Command == "create" || inv.Command == "run":
		bundle := inv.Bundle
		if bundle == "" {
			bundle = "."
		}
		return FilterFile(filepath.Join(bundle, "config.json"), true, allowed)
	case inv.Command == "exec" && inv.ProcessFile != "":
		return FilterFile(inv.ProcessFile, false, allowed)
	}
	return nil
}

// DelegateFlag, first of the wrapper's arguments (daemon.json's
// runtimeArgs), names the runtime to hand over to instead of runc: the
// host's own default runtime, which the wrapper runs in front of.
const DelegateFlag = "--handover-delegate"

// SplitDelegate takes the delegate runtime off the front of args.
func SplitDelegate(args []string) (delegate string, rest []string) {
	if len(args) > 0 {
		if v, ok := strings.CutPrefix(args[0], DelegateFlag+"="); ok {
			return v, args[1:]
		}
	}
	return "", args
}

// Main is the wrapper's entry point: filter, then exec the real runtime
// (the delegate, or runc) with the same arguments. It only returns on
// error.
func Main(args []string) error {
	delegate, rest := SplitDelegate(args[1:])
	allowed, err := ReadBoundingSet()
	if err != nil {
		return err
	}
	if err := Prepare(ParseArgs(rest), allowed); err != nil {
		return fmt.Errorf("handover-runc: %w", err)
	}
	runtime := delegate
	if runtime == "" {
		self, _ := os.Executable()
		if runtime, err = FindRuntime(self); err != nil {
			return err
		}
	}
	return syscall.Exec(runtime, append([]string{runtime}, rest...), os.Environ())
}
