package load

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apiWorkers send the API load's requests side by side: the limiter's rate
// holds only while a response takes less than apiWorkers/APIQPS. With four
// workers that was 200 ms at moderate's 20 QPS, and a default rehearsal on
// a loaded 2-core host delivered 13.5–15.7 QPS; an etcd member leaving
// makes seconds. Idle workers cost nothing but a goroutine.
const apiWorkers = 16

// apiLoad reads and writes at the profile's rate: of every four requests,
// three read (list Pods, list ConfigMaps, get the Service list) and one
// writes a ConfigMap.
func (g *Generator) apiLoad(ctx context.Context) {
	if g.p.APIQPS == 0 {
		return
	}
	lim := rate.NewLimiter(rate.Limit(g.p.APIQPS), 1)
	var n atomic.Int64
	var wg sync.WaitGroup
	for range apiWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lim.Wait(ctx) == nil {
				t := time.Now()
				g.apiRequest(ctx, int(n.Add(1)-1))
				g.took(time.Since(t))
			}
		}()
	}
	wg.Wait()
}

// apiRequest sends the i-th request of the API load and counts it.
func (g *Generator) apiRequest(ctx context.Context, i int) {
	cms := g.c.CoreV1().ConfigMaps(Namespace)
	var err error
	switch i % 4 {
	case 0:
		_, err = g.c.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
	case 1:
		_, err = cms.List(ctx, metav1.ListOptions{})
	case 2:
		_, err = g.c.CoreV1().Services(Namespace).List(ctx, metav1.ListOptions{})
	case 3:
		name := "load-" + strconv.Itoa((i/4)%10)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace}, Data: map[string]string{"n": strconv.Itoa(i)}}
		if _, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		}
	}
	if ctx.Err() != nil {
		return
	}
	g.count(&g.sum.APIRequests)
	if err != nil {
		g.count(&g.sum.APIErrors)
	}
}
