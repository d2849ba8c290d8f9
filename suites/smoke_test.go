package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/verify/checks"
)

// The smoke rehearsal is the task doc on the smallest cluster that still
// hands the controllers over between instances: 2 control planes and one
// worker, light load. CI runs it on every change.
var _ = Describe("smoke", Label("smoke"), func() {
	It("migrates the task doc's way under light load with every check green", func(ctx context.Context) {
		c := rehearsal.Default()
		c.ControlPlanes, c.Workers, c.Load = 2, 1, "light"
		res := rehearse(ctx, "smoke", c)
		// rehearse required every check green; a check that judged nothing
		// gives no result at all, so the smoke also asks that each question
		// a task-doc migration under load raises got an answer.
		judged := map[string]bool{}
		for _, r := range res.Report.Results {
			judged[r.Check] = true
		}
		for _, name := range []string{checks.Procedure, checks.Evidence, checks.MutualExclusion, checks.CoverageGap,
			checks.APIAvailability, checks.LBAvailability, checks.ProviderID, checks.NodeMetadata, checks.Uninitialized, checks.NodeDeletion,
			checks.LBIdentity, checks.LBIngress, checks.LBSingle, checks.PodCIDR, checks.Load} {
			Expect(judged).To(HaveKey(name), "no %s result; reports in %s", name, res.Dir)
		}
		Expect(res.Load.ServicesCreated).To(BeNumerically(">", 0), "the load created no Services")
	}, NodeTimeout(25*time.Minute))
})
