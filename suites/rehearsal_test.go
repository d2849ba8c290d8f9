package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/suites/rehearsal"
)

// Every procedure under moderate load: Service churn, API load, a worker
// joined and another's instance terminated during the migration.
var _ = Describe("every procedure under moderate load", Label("rehearsal"), func() {
	DescribeTable("rehearses with every check green",
		func(ctx context.Context, name string, edit func(*rehearsal.Config)) {
			c := rehearsal.Default()
			edit(&c)
			res := rehearse(ctx, name, c)
			Expect(res.Load.NodesJoined).To(BeNumerically(">=", 1), "no worker joined during the migration")
		},
		Entry("taskdoc", "taskdoc", func(c *rehearsal.Config) {}, NodeTimeout(30*time.Minute)),
		Entry("taskdoc in place, leader migration disabled after", "taskdoc-in-place", func(c *rehearsal.Config) { c.InPlace, c.Disable = true, true }, NodeTimeout(30*time.Minute)),
		Entry("taskdoc and rollback", "taskdoc-rollback", func(c *rehearsal.Config) { c.Rollback = true }, NodeTimeout(40*time.Minute)),
		Entry("rke2 (aws)", "rke2-aws", func(c *rehearsal.Config) { c.Procedure, c.Flavour = "rke2", "aws" }, NodeTimeout(30*time.Minute)),
		Entry("rke (external-aws)", "rke-external-aws", func(c *rehearsal.Config) { c.Procedure, c.Flavour = "rke", "external-aws" }, NodeTimeout(30*time.Minute)),
		Entry("node-ipam", "node-ipam", func(c *rehearsal.Config) { c.Procedure = "node-ipam" }, NodeTimeout(30*time.Minute)),
	)
})
