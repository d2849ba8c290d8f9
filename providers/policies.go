package providers

// Policies is a provider whose cloud holds each component to a permission
// policy of the user's own (--iam-policy: AWS's IAM), as the cloud
// itself would: a call the policy does not allow is refused.
type Policies interface {
	// PolicySides are the components a policy can be given to, by the
	// key a user names them with (kcm, ccm, kubelet).
	PolicySides() []string
	// CheckPolicy reads a policy document as the cloud reads it; an
	// error says why the cloud would refuse the document itself.
	CheckPolicy(data []byte) error
	// PolicyNotes say where the cloud holds a caller to a policy otherwise
	// than the real one would (never more kindly), for the plan.
	PolicyNotes(data []byte) []string
	// PolicyGaps are the actions side's components call, running codes
	// (module@version, as Coded names them), that the policy does not
	// allow: the cloud will refuse them.
	PolicyGaps(side string, codes []string, data []byte) []string
}
