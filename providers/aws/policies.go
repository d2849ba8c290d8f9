package aws

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon/iampolicy"
)

// kubeletPrincipal is the component each kubelet's key signs as.
const kubeletPrincipal = "kubelet"

// PolicyPrincipals are the components whose keys a policy can be given
// to: the managers' and the kubelets'.
var PolicyPrincipals = append(slices.Clone(principals), kubeletPrincipal)

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

// readPolicy reads one policy file, no larger than IAM's largest.
func readPolicy(path string) (iampolicy.Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return iampolicy.Policy{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, iampolicy.MaxSize+1))
	if err != nil {
		return iampolicy.Policy{}, err
	}
	return iampolicy.Parse(data)
}
