package aws

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon/iampolicy"
)

// kubeletPrincipal is the component each kubelet's key signs as.
const kubeletPrincipal = "kubelet"

// PolicyPrincipals are the components whose keys a policy can be given
// to: the managers' and the kubelets'.
var PolicyPrincipals = append(slices.Clone(principals), kubeletPrincipal)

var _ providers.Policies = Provider{}

// policySides are the components a user gives a policy to, by the keys
// --iam-policy names them with (a migration's sides, and the kubelets),
// and the principal each signs as here.
var policySides = map[string]string{"kcm": principals[0], "ccm": principals[1], "kubelet": kubeletPrincipal}

// PolicySides are kcm, ccm and kubelet.
func (Provider) PolicySides() []string { return slices.Sorted(maps.Keys(policySides)) }

// CheckPolicy reads a policy document as IAM does (iampolicy.Parse).
func (Provider) CheckPolicy(data []byte) error {
	_, err := iampolicy.Parse(data)
	return err
}

// PolicyNotes name the statements handover cannot evaluate exactly.
func (Provider) PolicyNotes(data []byte) []string {
	p, err := iampolicy.Parse(data)
	if err != nil {
		return nil // CheckPolicy says why
	}
	var out []string
	for _, sid := range p.Approximated() {
		out = append(out, sid+" names resources or conditions the simulated cloud does not model: an Allow of it allows nothing here, a Deny denies its actions outright")
	}
	return out
}

// writePolicies writes each side's policy into dir and returns the
// cloud's flags that hold that side's keys to it.
func writePolicies(dir string, policies map[string][]byte) ([]string, error) {
	var flags []string
	for _, side := range slices.Sorted(maps.Keys(policies)) {
		principal, ok := policySides[side]
		if !ok {
			return nil, fmt.Errorf("an IAM policy for %q: no such component (%s)", side, strings.Join(Provider{}.PolicySides(), ", "))
		}
		path := filepath.Join(dir, "policy-"+side+".json")
		if err := privatefs.WriteFile(path, policies[side]); err != nil {
			return nil, err
		}
		flags = append(flags, "--aws-iam-policy", principal+"="+path)
	}
	return flags, nil
}

// readPolicies reads --aws-iam-policy's PRINCIPAL=FILE values, each
// principal once, each file as IAM reads a policy document.
func readPolicies(specs []string) (map[string]iampolicy.Policy, error) {
	out := map[string]iampolicy.Policy{}
	for _, spec := range specs {
		principal, file, ok := strings.Cut(spec, "=")
		switch {
		case !ok || file == "":
			return nil, fmt.Errorf("--aws-iam-policy %q: want PRINCIPAL=FILE", spec)
		case !slices.Contains(PolicyPrincipals, principal):
			return nil, fmt.Errorf("--aws-iam-policy %q: no component %q signs here (%s)", spec, principal, strings.Join(PolicyPrincipals, ", "))
		}
		if _, dup := out[principal]; dup {
			return nil, fmt.Errorf("--aws-iam-policy: %s given twice", principal)
		}
		p, err := readPolicy(file)
		if err != nil {
			return nil, fmt.Errorf("--aws-iam-policy %s: %w", spec, err)
		}
		out[principal] = p
	}
	return out, nil
}

// readPolicy reads one policy file, no larger than IAM's largest
// document allows (internal/boundedfile: a device or a FIFO is refused at
// once).
func readPolicy(path string) (iampolicy.Policy, error) {
	data, err := boundedfile.Read(path, iampolicy.MaxSize)
	if err != nil {
		return iampolicy.Policy{}, err
	}
	return iampolicy.Parse(data)
}
