package migrate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/providers"
)

// PolicyFile is a user's permission policy for one component, as given.
type PolicyFile struct {
	Path string
	Data []byte
}

// policyLimit bounds a policy file: IAM's largest document is 10,240
// characters, with room for whitespace.
const policyLimit = 64 << 10

// SetPolicies reads --iam-policy arguments: SIDE=FILE, each side once
// (kcm, ccm, kubelet for aws: providers.Policies says which).
func (s *Spec) SetPolicies(args []string) error {
	for _, arg := range args {
		side, path, ok := strings.Cut(arg, "=")
		if !ok || side == "" || path == "" {
			return fmt.Errorf("--iam-policy %s: write SIDE=FILE (kcm=, ccm= or kubelet=)", arg)
		}
		if _, twice := s.Policies[side]; twice {
			return fmt.Errorf("--iam-policy %s: %s= is given twice: give each side once", arg, side)
		}
		raw, err := boundedfile.Read(path, policyLimit)
		if err != nil {
			return fmt.Errorf("--iam-policy %s: %w", arg, err)
		}
		if s.Policies == nil {
			s.Policies = map[string]PolicyFile{}
		}
		s.Policies[side] = PolicyFile{Path: path, Data: raw}
	}
	return nil
}

// validPolicies: a policy is held by a provider's cloud that has a
// permission model, for a component it names, and reads as that cloud
// reads a policy.
func (s Spec) validPolicies() []string {
	if len(s.Policies) == 0 {
		return nil
	}
	p, ok := providers.As[providers.Policies](s.cloud())
	if !s.OwnCode() || !ok {
		return []string{fmt.Sprintf("--iam-policy is held by a provider's own cloud with a permission model: give --provider %s",
			strings.Join(providers.NamesWith[providers.Policies](), " or "))}
	}
	var errs []string
	for _, side := range sortedSides(s.Policies) {
		f := s.Policies[side]
		if !slices.Contains(p.PolicySides(), side) {
			errs = append(errs, fmt.Sprintf("--iam-policy %s=%s: no component %q (%s)", side, f.Path, side, strings.Join(p.PolicySides(), ", ")))
			continue
		}
		if err := p.CheckPolicy(f.Data); err != nil {
			errs = append(errs, fmt.Sprintf("--iam-policy %s=%s: %v", side, f.Path, err))
		}
	}
	return errs
}

func sortedSides(m map[string]PolicyFile) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writePolicies tells, for each component given a policy of the user's,
// that the cloud holds its calls to it, and where it does so otherwise
// than the real cloud would.
func writePolicies(b *strings.Builder, s Spec) {
	p, ok := providers.As[providers.Policies](s.cloud())
	if !ok {
		return
	}
	for _, side := range sortedSides(s.Policies) {
		f := s.Policies[side]
		who := map[string]string{SideKCM: "the kube-controller-manager's (" + s.From + ")", SideCCM: "the cloud-controller-manager's", "kubelet": "every kubelet's"}[side]
		fmt.Fprintf(b, "IAM policy (%s): %s\n    the simulated cloud refuses each call of %s it does not allow, as the real one does; the refusals are in the cloud audit and the reports\n", side, f.Path, who)
		for _, n := range p.PolicyNotes(f.Data) {
			fmt.Fprintf(b, "    note: %s\n", n)
		}
		if gaps := p.PolicyGaps(side, s.policyCodes(side), f.Data); len(gaps) > 0 {
			fmt.Fprintf(b, "    refused, though %s code calls them: %s\n", who, strings.Join(gaps, ", "))
		}
	}
}

// policyCodes are the codes a side's components run: a manager's release,
// both sides' for the kubelets (N's in tree, N+1's beside the plugins).
func (s Spec) policyCodes(side string) []string {
	if side == SideKCM || side == SideCCM {
		return []string{s.codeOf(side)}
	}
	return []string{s.codeOf(SideKCM), s.codeOf(SideCCM)}
}

// policyFindings warn of each action a side's components call that its
// policy does not allow: the cloud refuses those calls, and what they are
// for fails from then on (a manager's, once it leads).
func (s Spec) policyFindings() lint.Findings {
	p, ok := providers.As[providers.Policies](s.cloud())
	if !ok || !s.OwnCode() {
		return nil
	}
	var out lint.Findings
	for _, side := range sortedSides(s.Policies) {
		f := s.Policies[side]
		callers := strings.Join(s.policyCodes(side), " and ") + " calls"
		if side != SideKCM && side != SideCCM {
			callers = "every kubelet calls (its cloud provider, its image credential provider)"
		}
		if gaps := p.PolicyGaps(side, s.policyCodes(side), f.Data); len(gaps) > 0 {
			out = append(out, lint.Finding{Severity: lint.Warning, Where: f.Path + " (--iam-policy " + side + ")",
				Problem: fmt.Sprintf("it does not allow %s, which %s: the cloud refuses each such call", strings.Join(gaps, ", "), callers),
				Fix:     "allow them in the policy"})
		}
	}
	return out
}
