package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/simulate/faults"
	"github.com/handover-sh/handover/verify/checks"
)

// The task doc with each fault at the hand-off, under moderate load.
var _ = Describe("faults at the hand-off", Label("faults"), func() {
	DescribeTable("the migration survives",
		func(ctx context.Context, fault string) {
			c := rehearsal.Default()
			c.Faults.Name = fault
			rehearse(ctx, "fault-"+fault, c)
		},
		Entry(faults.LeaderKill, faults.LeaderKill, NodeTimeout(30*time.Minute)),
		Entry(faults.CloudThrottle, faults.CloudThrottle, NodeTimeout(30*time.Minute)),
		Entry(faults.CloudOutage, faults.CloudOutage, NodeTimeout(30*time.Minute)),
	)

	// After the migration the lease holder is the cloud-controller-manager:
	// killed, another one takes over within the coverage threshold (the
	// clean counterpart of negative case 3).
	It(faults.LeaderKill+" after the procedure", func(ctx context.Context) {
		c := rehearsal.Default()
		c.Faults.Name, c.Faults.Step = faults.LeaderKill, faults.AfterProcedure
		rehearse(ctx, "fault-"+faults.LeaderKill+"-after", c)
	}, NodeTimeout(30*time.Minute))

	// A frozen leader is the one fault leader election does not survive
	// cleanly: client-go's leader election has no fencing, so the
	// kube-controller-manager frozen past its lease resumes and runs its
	// controllers on a stale cache until its renew deadline (10 s) passes,
	// while the cloud-controller-manager that took the lease runs them too.
	// The spec accepts a clean run or exactly that finding, bounded by the
	// renew deadline; anything else fails it.
	It(faults.CPNodeStop, func(ctx context.Context) {
		c := rehearsal.Default()
		c.Faults.Name = faults.CPNodeStop
		rehearseFinding(ctx, "fault-"+faults.CPNodeStop, c, func(r checks.Result) {
			Expect(r.Check).To(Equal(checks.MutualExclusion), "%s %s failed: %v", r.Check, r.Subject, r.Violations)
			for _, v := range r.Violations {
				Expect(v.To.Sub(v.From)).To(BeNumerically("<=", renewDeadline+time.Second), "a double run longer than the renew deadline: %s", v.Message)
			}
		})
	}, NodeTimeout(30*time.Minute))
})

// renewDeadline is the managers' leader-election renew deadline (default).
const renewDeadline = 10 * time.Second
