package host

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

const cgroupRoot = "/sys/fs/cgroup"

// ensureCgroupControllers mounts cgroup v1 controllers that the kernel has
// enabled but the host never mounted. Left unmounted, they are not scoped to
// any container: every kind node's systemd mounts the host's root of them,
// and kubelets of different nodes then share (and fight over) one /kubelet
// tree. Once mounted on the host, Docker gives each container its own
// cgroup in them like in every other controller.
func ensureCgroupControllers(record func(string)) error {
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		return nil // cgroup v2: every controller is in the unified hierarchy
	}
	for _, group := range unmountedControllers() {
		target := filepath.Join(cgroupRoot, group)
		if err := os.MkdirAll(target, 0o755); err != nil {
			return errorf("creating %s: %w", target, err)
		}
		if err := unix.Mount("cgroup", target, "cgroup", 0, group); err != nil {
			return errorf("mounting cgroup controller %s at %s: %w", group, target, err)
		}
		record("mounted unscoped cgroup v1 controller " + group + " at " + target)
	}
	return nil
}

// coMounted lists controllers the kernel mounts together.
var coMounted = map[string]string{"net_cls": "net_cls,net_prio", "net_prio": "net_cls,net_prio"}

// unmountedControllers returns enabled v1 controllers with hierarchy 0 in
// /proc/cgroups, grouped as they must be mounted.
func unmountedControllers() []string {
	f, err := os.Open("/proc/cgroups")
	if err != nil {
		return nil
	}
	defer f.Close()
	groups := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		name, hierarchy, enabled := fields[0], fields[1], fields[3]
		if hierarchy != "0" || enabled != "1" || name == "misc" || name == "rdma" {
			continue
		}
		if g, ok := coMounted[name]; ok {
			name = g
		}
		groups[name] = true
	}
	out := make([]string, 0, len(groups))
	for g := range groups {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}
