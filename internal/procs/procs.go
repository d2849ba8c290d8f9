// Package procs tells whether a recorded pid still is the process handover
// started: pids are reused, and signalling a stale one would hit whatever
// process has it now.
package procs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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

// Program is the name process pid runs as: the last element of its first
// argument ("dockerd" for /usr/bin/dockerd -H fd://).
func Program(pid int) (string, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return "", err
	}
	argv0, _, _ := bytes.Cut(raw, []byte{0})
	if len(argv0) == 0 {
		return "", fmt.Errorf("process %d has no command line (a kernel thread, or one that has exited)", pid)
	}
	return filepath.Base(string(argv0)), nil
}

func matchAt(have [][]byte, args []string) bool {
	for j, a := range args {
		if string(have[j]) != a {
			return false
		}
	}
	return true
}

// StartTime is when process pid started, in clock ticks since boot (field
// 22 of /proc/PID/stat): with the pid, it names one process for good.
func StartTime(pid int) (uint64, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces and parentheses: the
	// fields after it start past its last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := bytes.Fields(raw[i+1:])
	const startField = 22 - 3 // fields 3.. follow the name
	if len(fields) <= startField {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields)+2)
	}
	return strconv.ParseUint(string(fields[startField]), 10, 64)
}

// Alive reports whether the process that was pid at start still runs.
func Alive(pid int, start uint64) bool {
	got, err := StartTime(pid)
	return err == nil && got == start
}
