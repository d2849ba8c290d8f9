package migrate

import (
	"fmt"
	"io"
	"strings"
)

// WritePlan prints every step of p with what it does on a real cluster: a
// dry run an operator can follow by hand.
func WritePlan(w io.Writer, p *Procedure, s Spec) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nprocedure: %s\nsource:    %s\ncluster:   %s, %d control planes, %s -> %s\n",
		p.Title, p.Name, p.Source, s.Cluster, s.ControlPlanes, s.From, s.To)
	if s.Flavour != "" {
		fmt.Fprintf(&b, "flavour:   %s\n", s.Flavour)
	}
	writeCloudConfigs(&b, s)
	writePolicies(&b, s)
	for i, st := range p.Steps {
		fmt.Fprintf(&b, "\n## %d. %s\n\n%s\n", i+1, st.Name, st.Title)
		for _, it := range st.Plan {
			writeItem(&b, it)
		}
		if st.Wait.Name != "" {
			fmt.Fprintf(&b, "\nthen wait (up to %s): %s\n", st.Wait.Timeout, st.Wait.Name)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeItem(b *strings.Builder, it Item) {
	switch it.Kind {
	case Command:
		if it.Title != "" {
			fmt.Fprintf(b, "\n%s:\n", it.Title)
		}
		fmt.Fprintf(b, "\n    %s\n", strings.ReplaceAll(strings.TrimRight(it.Body, "\n"), "\n", "\n    "))
	case File, Rancher:
		label := map[ItemKind]string{File: "file", Rancher: "Rancher"}[it.Kind]
		fmt.Fprintf(b, "\n%s %s:\n\n    %s\n", label, it.Title, strings.ReplaceAll(strings.TrimRight(it.Body, "\n"), "\n", "\n    "))
	case Note:
		fmt.Fprintf(b, "\nnote: %s\n", it.Body)
	}
}
