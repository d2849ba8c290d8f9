package load

import (
	"context"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/timeline"
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
		g.retry(ctx, "create Service", &g.sum.ServicesCreated, func(ctx context.Context) error {
			_, err := svcs.Create(ctx, lbService(churnName(n)), metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return nil // an earlier try went through
			}
			return err
		})
		if n >= 1 {
			patch := []byte(`{"metadata":{"annotations":{"handover.sh/generation":"` + strconv.Itoa(n) + `"}}}`)
			g.retry(ctx, "update Service", &g.sum.ServicesUpdated, func(ctx context.Context) error {
				_, err := svcs.Patch(ctx, churnName(n-1), types.MergePatchType, patch, metav1.PatchOptions{})
				return err
			})
		}
		if n >= 2 {
			g.retry(ctx, "delete Service", &g.sum.ServicesDeleted, func(ctx context.Context) error {
				asked := time.Now()
				err := svcs.Delete(ctx, churnName(n-2), metav1.DeleteOptions{})
				if apierrors.IsNotFound(err) {
					return nil // an earlier try went through (the observers saw when)
				}
				if err == nil {
					g.deleted(churnName(n-2), asked)
				}
				return err
			})
		}
	}
}

// retry does an action until it succeeds, as a controller would through
// the API's transient failures during a migration (an etcd member leaving
// times requests out); each failed try counts as an API error.
func (g *Generator) retry(ctx context.Context, what string, done *int, do func(context.Context) error) {
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, g.retryFor, true, func(ctx context.Context) (bool, error) {
		if last = do(ctx); last != nil {
			g.count(&g.sum.APIErrors)
			return false, nil
		}
		return true, nil
	})
	switch {
	case err == nil:
		g.count(done)
	case ctx.Err() == nil:
		g.fail(what, fmt.Errorf("%w (for %s)", last, g.retryFor))
	}
}

func churnName(n int) string { return fmt.Sprintf("churn-%d", n) }

func standingName(i int) string { return fmt.Sprintf("web-%d", i) }

// deleted records when a Service's deletion was asked for: the observers'
// watch may see it seconds later, and its load balancer goes from now on.
func (g *Generator) deleted(name string, asked time.Time) {
	g.emit(timeline.Event{Time: asked, Kind: timeline.ServiceDeleted, Attrs: map[string]string{"service": Namespace + "/" + name}})
}
