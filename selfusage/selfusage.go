// Package selfusage measures what handover costs the machine it rehearses
// on: its own processes' CPU (their reaped children included: every
// command it ran) and the host's CPU pressure, sampled onto the timeline,
// and summarised beside every verdict. A harness that starves the cluster
// it observes inflates the gaps it reports.
package selfusage

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat times (100 on every
// Linux architecture handover runs on).
const clockTicks = 100

// Usage is one reading.
type Usage struct {
	// CPU is the CPU seconds the processes used since they started, their
	// reaped children's included.
	CPU float64
	// PressureUS is the host's cumulative "some" CPU stall in µs; 0 where
	// the kernel has no pressure stall information.
	PressureUS float64
	// RSS is the processes' resident memory now, in bytes.
	RSS int64
}

// Read sums the CPU of pids (0 is this process) and reads the host's CPU
// pressure. A pid that is gone counts nothing.
func Read(pids ...int) Usage {
	var u Usage
	for _, pid := range pids {
		u.CPU += processCPU(pid)
		u.RSS += processRSS(pid)
	}
	u.PressureUS = pressureTotal()
	return u
}

// processCPU is utime+stime+cutime+cstime of a process, in seconds.
func processCPU(pid int) float64 {
	raw, err := os.ReadFile(procFile(pid, "stat"))
	if err != nil {
		return 0
	}
	f, err := statFields(string(raw))
	if err != nil {
		return 0
	}
	var ticks float64
	for _, i := range []int{14, 15, 16, 17} { // utime stime cutime cstime (1-based)
		v, _ := strconv.ParseFloat(f[i-1], 64)
		ticks += v
	}
	return ticks / clockTicks
}

// procFile is a file of /proc/PID (pid 0: this process).
func procFile(pid int, name string) string {
	if pid == 0 {
		return "/proc/self/" + name
	}
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}

// processRSS is a process's VmRSS, in bytes (0 when it is gone).
func processRSS(pid int) int64 {
	raw, err := os.ReadFile(procFile(pid, "status"))
	if err != nil {
		return 0
	}
	return vmRSS(string(raw))
}

// vmRSS reads the VmRSS line of a /proc/PID/status ("VmRSS:  1234 kB").
func vmRSS(status string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// statFields splits /proc/PID/stat, whose second field (the command, in
// parentheses) may itself hold spaces.
func statFields(s string) ([]string, error) {
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return nil, fmt.Errorf("malformed stat %q", s)
	}
	rest := strings.Fields(s[end+1:])
	if len(rest) < 15 {
		return nil, fmt.Errorf("short stat %q", s)
	}
	return append([]string{"pid", "comm"}, rest...), nil
}

// pressureTotal reads "some ... total=N" from /proc/pressure/cpu.
func pressureTotal() float64 {
	raw, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0
	}
	return parsePressure(string(raw))
}

func parsePressure(s string) float64 {
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "some ") {
			continue
		}
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, "total="); ok {
				n, _ := strconv.ParseFloat(v, 64)
				return n
			}
		}
	}
	return 0
}
