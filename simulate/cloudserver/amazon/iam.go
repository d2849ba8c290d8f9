package amazon

import (
	"context"
	"fmt"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// The callers' IAM policies: a call its caller's policy does not allow is
// refused with the service's own code (EC2 UnauthorizedOperation, ELB
// AccessDenied, ECR AccessDeniedException), naming the action and why, as
// AWS words it ("User: ARN is not authorized to perform: ACTION because
// no identity-based policy allows the ACTION action"), before anything
// else is done. The cloud's audit holds the refusal (fault "iam"), so the
// timeline and the reports name the action.

// FaultIAM names a refusal by the caller's IAM policy.
const FaultIAM = "iam"

func (f *Face) authorize(ctx context.Context, c awsapi.Call, r awsapi.Refusals) *awsapi.Error {
	p, ok := f.opts.Policies[c.Key.Principal]
	if !ok {
		return nil
	}
	action := controller(c)
	d := p.Decide(action)
	if d.Allowed {
		return nil
	}
	why := "because no identity-based policy allows the " + action + " action"
	if d.Explicit {
		why = fmt.Sprintf("with an explicit deny in an identity-based policy (%s)", d.By)
	}
	e := r.Denied
	e.Fault = FaultIAM
	e.Message = fmt.Sprintf("User: %s is not authorized to perform: %s %s", callerARN(c.Key), action, why)
	_ = f.cloud(c).FaceRefused(ctx, action, action, FaultIAM) // its answer is the refusal recorded
	return &e
}

// callerARN is the role session a component's key stands for: its
// instance's role (a node's key, by the node) or its own.
func callerARN(k awsapi.Key) string {
	session := k.Node
	if session == "" {
		session = k.Principal
	}
	return fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", account, k.Principal, session)
}
