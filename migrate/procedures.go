package migrate

import (
	"fmt"
	"sort"
	"strings"
)

// Procedure names.
const (
	TaskDoc       = "taskdoc"
	RKE2          = "rke2"
	RKE           = "rke"
	DefaultConfig = "default-config"
	NodeIPAM      = "node-ipam"
)

var builders = map[string]func(Spec) *Procedure{
	TaskDoc:       taskDoc,
	RKE2:          rke2,
	RKE:           rke,
	DefaultConfig: defaultConfig,
	NodeIPAM:      nodeIPAM,
}

// Names lists the procedures, sorted.
func Names() []string {
	out := make([]string, 0, len(builders))
	for n := range builders {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Build validates the spec and returns its procedure.
func Build(s Spec) (*Procedure, error) {
	b, ok := builders[s.Procedure]
	if !ok {
		return nil, fmt.Errorf("unknown procedure %q: choose one of %s", s.Procedure, strings.Join(Names(), ", "))
	}
	if s.Flavour == "" {
		s.Flavour = map[string]string{RKE2: "aws", RKE: "external"}[s.Procedure]
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return b(s), nil
}
