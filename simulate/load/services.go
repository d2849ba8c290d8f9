package load

import (
	"context"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// churnServices creates, updates and deletes LoadBalancer Services: each
// tick creates churn-N, changes an annotation of churn-(N-1) (the service
// controller updates its load balancer) and deletes churn-(N-2).
func (g *Generator) churnServices(ctx context.Context) {
	if g.p.ChurnEvery == 0 {
		return
	}
	t := time.NewTicker(g.p.ChurnEvery)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		svcs := g.c.CoreV1().Services(Namespace)
		if _, err := svcs.Create(ctx, lbService(churnName(n)), metav1.CreateOptions{}); err != nil {
			g.fail("create Service", err)
		} else {
			g.count(&g.sum.ServicesCreated)
		}
		if n >= 1 {
			patch := []byte(`{"metadata":{"annotations":{"handover.sh/generation":"` + strconv.Itoa(n) + `"}}}`)
			if _, err := svcs.Patch(ctx, churnName(n-1), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				g.fail("update Service", err)
			} else {
				g.count(&g.sum.ServicesUpdated)
			}
		}
		if n >= 2 {
			if err := svcs.Delete(ctx, churnName(n-2), metav1.DeleteOptions{}); err != nil {
				g.fail("delete Service", err)
			} else {
				g.count(&g.sum.ServicesDeleted)
			}
		}
	}
}

func churnName(n int) string { return fmt.Sprintf("churn-%d", n) }

func standingName(i int) string { return fmt.Sprintf("web-%d", i) }
