package suites_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/suites/rehearsal"
)

// The smoke rehearsal is the task doc on the smallest cluster that still
// hands the controllers over between instances: 2 control planes and one
// worker, light load. CI runs it on every change.
var _ = Describe("smoke", Label("smoke"), func() {
	It("migrates the task doc's way under light load with every check green", func(ctx context.Context) {
		c := rehearsal.Default()
		c.ControlPlanes, c.Workers, c.Load = 2, 1, "light"
		res := rehearse(ctx, "smoke", c)
		Expect(res.Report.Passed()).To(BeTrue())
		Expect(res.Load.ServicesCreated).To(BeNumerically(">", 0), "the load created no Services")
	}, NodeTimeout(25*time.Minute))
})
