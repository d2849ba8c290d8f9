package readonly

import (
	"fmt"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// RBAC is what an observer needs, as YAML documents, all named name and
// all from Needs: a ClusterRole with get, list and watch of each need not
// limited to a namespace and get of the non-resource URLs; a Role with
// the verbs of the needs limited to each namespace (the leases and pods,
// and get of the pods' logs, in kube-system alone). Never a write. Given subjects, a
// ClusterRoleBinding and a RoleBinding per Role bind them to each.
func RBAC(name string, subjects ...rbacv1.Subject) string {
	return Roles{Name: name, Reader: "handover observe", Needs: Needs, URLs: NonResourceURLs}.YAML(subjects...)
}

// Roles are what a reader of a cluster needs, printed as RBAC prints the
// observer's: never a write.
type Roles struct {
	Name   string // of every role and binding
	Reader string // the command that reads, for the printed comment
	Needs  []Need
	URLs   []string // non-resource URLs it gets
}

// YAML is the roles, and their bindings to subjects when there are any.
func (r Roles) YAML(subjects ...rbacv1.Subject) string {
	byNS := map[string]map[string][]string{} // namespace, rule (group and verbs): resources
	for _, n := range r.Needs {
		if byNS[n.Namespace] == nil {
			byNS[n.Namespace] = map[string][]string{}
		}
		k := ruleKey(n.Group, n.granted())
		byNS[n.Namespace][k] = append(byNS[n.Namespace][k], n.Resource)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# What %s reads; it never writes.\n", r.Reader)
	if len(subjects) == 0 {
		fmt.Fprintf(&b, "# Bind each role to the identity in the kubeconfig, or print the bindings too: --rbac-subject.\n")
	}
	fmt.Fprintf(&b, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: %s\nrules:\n", r.Name)
	writeRules(&b, byNS[""])
	fmt.Fprintf(&b, "- nonResourceURLs: [%s]\n  verbs: [get]\n", quoted(r.URLs))
	writeBinding(&b, "ClusterRole", r.Name, "", subjects)
	for _, ns := range sortedKeys(byNS) {
		if ns == "" {
			continue
		}
		fmt.Fprintf(&b, "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: %s\n  namespace: %s\nrules:\n", r.Name, ns)
		writeRules(&b, byNS[ns])
		writeBinding(&b, "Role", r.Name, ns, subjects)
	}
	return b.String()
}

// ruleKey is one rule's API group and verbs, sorting by group.
func ruleKey(group string, verbs []string) string { return group + "\x00" + strings.Join(verbs, ", ") }

// writeRules grants the verbs of resources, a rule per API group and
// verbs.
func writeRules(b *strings.Builder, byRule map[string][]string) {
	for _, k := range sortedKeys(byRule) {
		g, verbs, _ := strings.Cut(k, "\x00")
		rs := byRule[k]
		sort.Strings(rs)
		fmt.Fprintf(b, "- apiGroups: [%q]\n  resources: [%s]\n  verbs: [%s]\n", g, strings.Join(rs, ", "), verbs)
	}
}

// writeBinding binds the role (kind ClusterRole, or Role in ns) to the
// subjects, when there are any.
func writeBinding(b *strings.Builder, kind, name, ns string, subjects []rbacv1.Subject) {
	if len(subjects) == 0 {
		return
	}
	fmt.Fprintf(b, "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: %sBinding\nmetadata:\n  name: %s\n", kind, name)
	if ns != "" {
		fmt.Fprintf(b, "  namespace: %s\n", ns)
	}
	fmt.Fprintf(b, "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: %s\n  name: %s\nsubjects:\n", kind, name)
	for _, s := range subjects {
		fmt.Fprintf(b, "- kind: %s\n  name: %q\n", s.Kind, s.Name)
		if s.APIGroup != "" {
			fmt.Fprintf(b, "  apiGroup: %s\n", s.APIGroup)
		}
		if s.Namespace != "" {
			fmt.Fprintf(b, "  namespace: %q\n", s.Namespace)
		}
	}
}

// ParseSubject reads a subject as kubectl's create rolebinding flags name
// one: user:NAME, group:NAME or serviceaccount:NAMESPACE:NAME.
func ParseSubject(s string) (rbacv1.Subject, error) {
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "user", "group":
		if rest != "" {
			return rbacv1.Subject{Kind: strings.ToUpper(kind[:1]) + kind[1:], APIGroup: rbacv1.GroupName, Name: rest}, nil
		}
	case "serviceaccount":
		if ns, name, ok := strings.Cut(rest, ":"); ok && ns != "" && name != "" && !strings.Contains(name, ":") {
			return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}, nil
		}
	}
	return rbacv1.Subject{}, fmt.Errorf("subject %q: want user:NAME, group:NAME or serviceaccount:NAMESPACE:NAME", s)
}

func quoted(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(out, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
