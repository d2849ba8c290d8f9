package capfilter

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Set is a capability bit set as the kernel reports it (bit N = capability N).
type Set uint64

// capNames lists capabilities by number, as OCI specs name them.
var capNames = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
}

// Has reports whether the named capability (e.g. "CAP_SYS_ADMIN") is in s.
// Names this package does not know are kept: the wrapper only removes what
// it can prove the host lacks.
func (s Set) Has(name string) bool {
	for i, n := range capNames {
		if n == name {
			return s&(1<<uint(i)) != 0
		}
	}
	return true
}

// Missing returns the names of known capabilities up to lastCap that s lacks.
func (s Set) Missing(lastCap int) []string {
	var out []string
	for i := 0; i <= lastCap && i < len(capNames); i++ {
		if s&(1<<uint(i)) == 0 {
			out = append(out, capNames[i])
		}
	}
	return out
}

// ReadBoundingSet returns the calling process's capability bounding set.
func ReadBoundingSet() (Set, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading capability bounding set: %w", err)
	}
	defer f.Close()
	return parseBoundingSet(f)
}

func parseBoundingSet(r io.Reader) (Set, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "CapBnd:")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing CapBnd %q: %w", v, err)
		}
		return Set(n), nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no CapBnd line in process status")
}

// LastCap returns the highest capability number the running kernel knows.
func LastCap() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 0, fmt.Errorf("reading cap_last_cap: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}
