package kindcluster

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
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
	if err := os.MkdirAll(filepath.Dir(sysctlStateFile()), 0o755); err != nil {
		return err
	}
	return os.WriteFile(sysctlStateFile(), raw, 0o644)
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
	if err := json.Unmarshal(raw, &state); err != nil {
		return os.Remove(sysctlStateFile())
	}
	for k, v := range state {
		_ = os.WriteFile("/proc/sys/"+k, []byte(v), 0o644)
	}
	return os.Remove(sysctlStateFile())
}
