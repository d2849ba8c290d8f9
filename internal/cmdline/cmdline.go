// Package cmdline reads and edits a manager's command line of --name=value
// flags as pflag reads it: a bare --name is true, _ in a name is -, the
// last of a name wins. The procedure's manifests, the user's flags and the
// lint all go through it, so they agree on what a manager runs with.
package cmdline

import (
	"slices"
	"strings"
)

// Split splits --name=value (or a bare --name, value "true"); ok is false
// for anything that is not a long flag.
func Split(a string) (name, value string, ok bool) {
	rest, ok := strings.CutPrefix(a, "--")
	if !ok || rest == "" || strings.HasPrefix(rest, "-") {
		return "", "", false
	}
	name, value, hasValue := strings.Cut(rest, "=")
	if !hasValue {
		value = "true"
	}
	// The managers' flag sets read _ as - (component-base's
	// WordSepNormalizeFunc).
	return strings.ReplaceAll(name, "_", "-"), value, name != ""
}

// Long is a container's command line as --name=value flags: the
// executable and anything else that is no flag left out, "--name value"
// joined (a manager's pod may write either form).
func Long(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if _, _, ok := Split(a); !ok {
			continue
		}
		if !strings.Contains(a, "=") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			a += "=" + args[i+1]
			i++
		}
		out = append(out, a)
	}
	return out
}

// Value is the value of --name among args: the last one given.
func Value(args []string, name string) (string, bool) {
	value, found := "", false
	for _, a := range args {
		if n, v, ok := Split(a); ok && n == name {
			value, found = v, true
		}
	}
	return value, found
}

// Merge is base with extra's flags added, each replacing base's flag of the
// same name: one value per flag, as given last. --feature-gates merges
// instead, extra's gates winning per gate (kubeadm's
// DisableCloudProviders=false keeps an in-tree manager alive).
func Merge(base, extra []string) []string {
	out := slices.Clone(base)
	for _, a := range extra {
		name, value, _ := Split(a)
		if name == "feature-gates" {
			old, _ := Value(out, name)
			a = "--feature-gates=" + MergeGates(old, value)
		}
		out = slices.DeleteFunc(out, func(b string) bool { n, _, ok := Split(b); return ok && n == name })
		out = append(out, a)
	}
	return out
}

// MergeGates is a --feature-gates list with over's gates replacing base's.
func MergeGates(base, over string) string {
	var out []string
	set := map[string]bool{}
	for _, g := range strings.Split(over, ",") {
		if n, _, _ := strings.Cut(g, "="); n != "" {
			set[strings.TrimSpace(n)] = true
		}
	}
	for _, g := range strings.Split(base, ",") {
		if n, _, _ := strings.Cut(g, "="); n != "" && !set[strings.TrimSpace(n)] {
			out = append(out, g)
		}
	}
	for _, g := range strings.Split(over, ",") {
		if g != "" {
			out = append(out, g)
		}
	}
	return strings.Join(out, ",")
}
