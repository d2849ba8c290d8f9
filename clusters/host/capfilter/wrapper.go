package capfilter

import (
	"fmt"
	"os"
	"path/filepath"
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

// Main is the wrapper's entry point: filter, then exec runc with the same
// arguments. It only returns on error.
func Main(args []string) error {
	allowed, err := ReadBoundingSet()
	if err != nil {
		return err
	}
	if err := Prepare(ParseArgs(args[1:]), allowed); err != nil {
		return fmt.Errorf("handover-runc: %w", err)
	}
	self, _ := os.Executable()
	runc, err := FindRuntime(self)
	if err != nil {
		return err
	}
	return syscall.Exec(runc, append([]string{runc}, args[1:]...), os.Environ())
}
