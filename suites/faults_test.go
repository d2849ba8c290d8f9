package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/handover-sh/handover/simulate/faults"
	"github.com/handover-sh/handover/suites/rehearsal"
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
		Entry(faults.CPNodeStop, faults.CPNodeStop, NodeTimeout(30*time.Minute)),
		Entry(faults.CloudThrottle, faults.CloudThrottle, NodeTimeout(30*time.Minute)),
		Entry(faults.CloudOutage, faults.CloudOutage, NodeTimeout(30*time.Minute)),
	)
})
