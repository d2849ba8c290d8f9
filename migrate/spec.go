package migrate

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Spec is everything a procedure is built from; the same Spec gives the
// plan and the run, so what is printed is what runs.
type Spec struct {
	Procedure string
	Cluster   string
	From      string // Kubernetes version N, with the in-tree provider
	To        string // Kubernetes version N+1, with the cloud-controller-manager
	// ControlPlanes is N, the number of control-plane nodes kept throughout.
	ControlPlanes int
	PodSubnet     string
	LeaderName    string
	Variant       Variant
	// Flavour picks the Rancher runbook's cloud: aws or azure (rke2),
	// external or external-aws (rke).
	Flavour string
	// Mistake makes the procedure go wrong on purpose (see Mistakes).
	Mistake string
}

// Variant modifies a procedure.
type Variant struct {
	InPlace  bool // rewrite static pods node by node instead of replacing nodes
	Rollback bool // N+1 back to N, one node at a time
	Disable  bool // remove leader migration once done
}

// DefaultSpec is the default rehearsal's cluster: 3 control planes, v1.30.14
// to v1.31.4.
func DefaultSpec(procedure string) Spec {
	return Spec{Procedure: procedure, Cluster: "handover", From: "v1.30.14", To: "v1.31.4",
		ControlPlanes: 3, PodSubnet: "10.244.0.0/16", LeaderName: lmconfig.DefaultLeaderName}
}

// Validate rejects contradictions before anything is built or run.
func (s Spec) Validate() error {
	var errs []string
	from, err := nodeimage.Lookup(s.From)
	if err != nil {
		errs = append(errs, "--from: "+err.Error())
	} else if !from.InTreeCloud {
		errs = append(errs, fmt.Sprintf("--from %s: its managers have no in-tree cloud provider to migrate from", s.From))
	}
	if _, err := nodeimage.Lookup(s.To); err != nil {
		errs = append(errs, "--to: "+err.Error())
	}
	if s.ControlPlanes < 1 {
		errs = append(errs, "the cluster needs at least one control plane")
	}
	if s.Variant.InPlace && s.Procedure != TaskDoc {
		errs = append(errs, "--in-place applies to the taskdoc procedure only")
	}
	if s.Variant.Rollback && s.Procedure != TaskDoc {
		errs = append(errs, "--rollback applies to the taskdoc procedure only")
	}
	if s.Variant.InPlace && s.Variant.Rollback {
		errs = append(errs, "--in-place and --rollback contradict: rollback replaces nodes")
	}
	if err := s.validFlavour(); err != nil {
		errs = append(errs, err.Error())
	}
	if err := s.validMistake(); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid migration: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (s Spec) validFlavour() error {
	ok := map[string][]string{RKE2: {"aws", "azure"}, RKE: {"external", "external-aws"}}[s.Procedure]
	if ok == nil {
		if s.Flavour != "" {
			return fmt.Errorf("--flavour applies to rke2 and rke only")
		}
		return nil
	}
	for _, f := range ok {
		if s.Flavour == f {
			return nil
		}
	}
	return fmt.Errorf("--flavour %q: %s supports %s", s.Flavour, s.Procedure, strings.Join(ok, ", "))
}

// Controllers are the controllers a procedure migrates, by canonical name.
func (s Spec) Controllers() []string {
	c := append([]string(nil), lint.Migratable...)
	if s.Procedure == NodeIPAM {
		c = append(c, lint.NodeIPAM)
	}
	return c
}
