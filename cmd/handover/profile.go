package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/handover-sh/handover/internal/privatefs"
)

// profileEnv names a file to write a CPU profile of this process into, for
// finding what handover itself costs the machine it rehearses on; each
// command writes its own (PATH.rehearse, PATH.simcloud, ...), since the
// simulated cloud's server is a child that inherits the variable.
const profileEnv = "HANDOVER_CPUPROFILE"

// startProfile starts the CPU profile HANDOVER_CPUPROFILE asks for; the
// returned func ends it.
func startProfile() func() {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	if len(os.Args) > 1 {
		path += "." + os.Args[1]
	}
	f, err := privatefs.Rewrite(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "WARNING: %s=%s: %v\n", profileEnv, path, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
