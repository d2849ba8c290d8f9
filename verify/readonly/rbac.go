package readonly

import (
	"fmt"
	"sort"
	"strings"
)

// ClusterRole is the role an observer needs, as YAML: get, list and watch
// of each need, get of the non-resource URLs; never a write.
func ClusterRole(name string) string {
	byGroup := map[string][]string{}
	for _, n := range Needs {
		byGroup[n.Group] = append(byGroup[n.Group], n.Resource)
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	var b strings.Builder
	fmt.Fprintf(&b, "# What handover observe reads; it never writes.\n")
	fmt.Fprintf(&b, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: %s\nrules:\n", name)
	for _, g := range groups {
		rs := byGroup[g]
		sort.Strings(rs)
		fmt.Fprintf(&b, "- apiGroups: [%q]\n  resources: [%s]\n  verbs: [get, list, watch]\n", g, strings.Join(rs, ", "))
	}
	fmt.Fprintf(&b, "- nonResourceURLs: [%s]\n  verbs: [get]\n", quoted(NonResourceURLs))
	return b.String()
}

func quoted(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(out, ", ")
}
