package migrate

import (
	"slices"
	"strings"

	"github.com/handover-sh/handover/internal/cmdline"
)

// Flag edits on a container command line of --name=value flags, as kubeadm
// writes them.

func flagValue(cmd []string, name string) (string, bool) {
	for _, a := range cmd {
		if a == "--"+name {
			return "", true
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// setFlag replaces the flag's value or appends it; value "" writes a bare
// boolean flag.
func setFlag(cmd []string, name, value string) []string {
	arg := "--" + name
	if value != "" {
		arg += "=" + value
	}
	out := removeFlag(cmd, name)
	return append(out, arg)
}

// removeFlag drops every spelling of the flag (--a_b is --a-b), as the
// managers read them.
func removeFlag(cmd []string, name string) []string {
	return slices.DeleteFunc(slices.Clone(cmd), func(a string) bool { n, _, ok := cmdline.Split(a); return ok && n == name })
}

// removeFeatureGate drops one gate from a --feature-gates list.
func removeFeatureGate(cmd []string, gate string) []string {
	v, ok := flagValue(cmd, "feature-gates")
	if !ok {
		return cmd
	}
	var keep []string
	for _, g := range strings.Split(v, ",") {
		if g != "" && !strings.HasPrefix(g, gate+"=") {
			keep = append(keep, g)
		}
	}
	if len(keep) == 0 {
		return removeFlag(cmd, "feature-gates")
	}
	return setFlag(cmd, "feature-gates", strings.Join(keep, ","))
}

func sameArgs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
