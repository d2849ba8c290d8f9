package scale

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// What a simulated node costs the machine, all told (the API servers' and
// etcd's copies, every manager's and agent's informer, kwok's lease): the
// limits a scale rehearsal is held to before anything starts. Measured
// figures are in the scale table of docs/measurements.md; these stay above them.
const (
	nodesPerCore  = 250
	nodeMemory    = 8 << 20
	clusterMemory = 6 << 30
)

// Machine is what the host offers.
type Machine struct {
	Cores          int
	AvailableBytes int64
}

// MostNodes is the largest fleet the machine holds.
func (m Machine) MostNodes() int {
	byMemory := int((m.AvailableBytes - clusterMemory) / nodeMemory)
	return max(0, min(m.Cores*nodesPerCore, byMemory))
}

// ThisMachine reads the cores Go may use and the memory the kernel says is
// available.
func ThisMachine() (Machine, error) {
	avail, err := memAvailable("/proc/meminfo")
	if err != nil {
		return Machine{}, err
	}
	return Machine{Cores: runtime.NumCPU(), AvailableBytes: avail}, nil
}

func memAvailable(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("reading available memory: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: MemAvailable %q: %w", path, fields[1], err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("%s has no MemAvailable line", path)
}
