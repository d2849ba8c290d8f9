package host

import (
	"os"
	"strconv"
	"strings"
)

// minSysctls are lower bounds that several nested kubelets need: each node's
// kubelet and containerd hold inotify instances of the shared host kernel.
var minSysctls = map[string]int{
	"fs/inotify/max_user_instances": 512,
	"fs/inotify/max_user_watches":   524288,
}

func ensureSysctls(record func(string)) error {
	for key, min := range minSysctls {
		path := "/proc/sys/" + key
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // not every kernel exposes every knob
		}
		cur, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil || cur >= min {
			continue
		}
		if err := os.WriteFile(path, []byte(strconv.Itoa(min)), 0o644); err != nil {
			return errorf("raising %s to %d: %w", strings.ReplaceAll(key, "/", "."), min, err)
		}
		record("raised " + strings.ReplaceAll(key, "/", ".") + " from " + strconv.Itoa(cur) + " to " + strconv.Itoa(min))
	}
	return nil
}
