// Package procs tells whether a recorded pid still is the process handover
// started: pids are reused, and signalling a stale one would hit whatever
// process has it now.
package procs

import (
	"bytes"
	"os"
	"strconv"
)

// Runs reports whether process pid is alive and its command line holds
// args, in that order and adjacent (e.g. "simcloud", "serve", "--cluster",
// NAME).
func Runs(pid int, args []string) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(raw) == 0 {
		return false
	}
	have := bytes.Split(bytes.TrimSuffix(raw, []byte{0}), []byte{0})
	for i := 0; i+len(args) <= len(have); i++ {
		if matchAt(have[i:], args) {
			return true
		}
	}
	return false
}

func matchAt(have [][]byte, args []string) bool {
	for j, a := range args {
		if string(have[j]) != a {
			return false
		}
	}
	return true
}
