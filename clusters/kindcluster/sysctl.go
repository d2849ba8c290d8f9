package kindcluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/privatefs"
)

// hostSysctls are host kernel settings a kubelet in a node container
// changes (the kernel does not namespace them).
var hostSysctls = []string{"vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops"}

func sysctlStateFile() string {
	return filepath.Join(nodeimage.DefaultCacheDir(), "host-sysctls.json")
}

// recordHostSysctls saves the settings before the first cluster starts.
func recordHostSysctls(c *Cluster) error {
	if _, err := os.Stat(sysctlStateFile()); err == nil {
		return nil // an earlier cluster already recorded the original values
	}
	state := map[string]string{}
	for _, k := range hostSysctls {
		if v, err := os.ReadFile("/proc/sys/" + k); err == nil {
			state[k] = strings.TrimSpace(string(v))
		}
	}
	raw, _ := json.Marshal(state)
	if err := privatefs.MkdirAll(filepath.Dir(sysctlStateFile())); err != nil {
		return err
	}
	return privatefs.WriteFile(sysctlStateFile(), raw)
}

// restoreHostSysctls puts the settings back once no kind node is left.
func restoreHostSysctls(c *Cluster) error {
	clusters, err := c.provider.List()
	if err != nil || len(clusters) > 0 {
		return err
	}
	raw, err := os.ReadFile(sysctlStateFile())
	if err != nil {
		return nil
	}
	state := map[string]string{}
	_ = json.Unmarshal(raw, &state)
	for k, v := range restorable(state) {
		_ = os.WriteFile("/proc/sys/"+k, []byte(v), 0o644)
	}
	return os.Remove(sysctlStateFile())
}

// restorable keeps only the settings handover records, each with an
// integer value: the file is read back as root, and a key such as
// "../../etc/x" or "kernel/core_pattern" must never become a write.
func restorable(state map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range state {
		if _, err := strconv.Atoi(v); err == nil && slices.Contains(hostSysctls, k) {
			out[k] = v
		}
	}
	return out
}
