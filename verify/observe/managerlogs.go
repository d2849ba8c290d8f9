package observe

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The managers' logs say what a controller fails at without posting an
// Event: the route controller logs "Couldn't reconcile node routes"
// (k8s.io/cloud-provider controllers/route/route_controller.go, klog
// Errorf) and nothing else shows it. Each manager pod's log is followed
// through the API and its errors written as manager.error.

// backoff is how long to wait before reopening a stream that ended: from
// min, doubling up to max while the streams bring no new line.
type backoff struct{ min, max time.Duration }

// logRetry: a container restarting is back within seconds; one crash
// looping, or a stream refused (no pods/log), stays so for minutes.
var logRetry = backoff{min: 2 * time.Second, max: 30 * time.Second}

// openLog opens a kube-system pod's container's log from since, following
// it, each line prefixed with the runtime's timestamp.
type openLog func(ctx context.Context, pod, container string, since time.Time) (io.ReadCloser, error)

// logFollowers follow each manager pod's log from when the pod is on a
// node until it goes, one reader per pod at a time.
type logFollowers struct {
	ob      *Observer
	ctx     context.Context
	open    openLog
	retry   backoff
	mu      sync.Mutex
	running map[string]*follower // by pod
	// logs are kept when a pod goes: one back under its name (a static
	// pod's mirror made again) resumes where it was read to.
	logs map[string]*podLog
}

type follower struct {
	cancel context.CancelFunc
	done   chan struct{}
	gone   bool // cancelled: its pod went
}

// logTarget is the pod a follower reads and whose errors they are.
type logTarget struct{ pod, container, manager, node string }

func (ob *Observer) newLogFollowers(ctx context.Context) *logFollowers {
	return &logFollowers{ob: ob, ctx: ctx, open: ob.streamLog, retry: logRetry, running: map[string]*follower{}, logs: map[string]*podLog{}}
}

// streamLog is the API's log of a kube-system pod's container.
func (ob *Observer) streamLog(ctx context.Context, pod, container string, since time.Time) (io.ReadCloser, error) {
	st := metav1.NewTime(since)
	o := &corev1.PodLogOptions{Container: container, Follow: true, Timestamps: true, SinceTime: &st}
	rc, err := ob.o.Client.CoreV1().Pods("kube-system").GetLogs(pod, o).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("log of kube-system/%s (container %s): %w", pod, container, err)
	}
	return rc, nil
}

// pod follows a manager's pod (its manager's container) once it is on a
// node, and stops following it when it goes or ends (a pod that failed or
// completed runs nothing more).
func (lf *logFollowers) pod(p *corev1.Pod, manager, container string, present bool) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	cur := lf.running[p.Name]
	if !present || p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
		if cur != nil && !cur.gone {
			cur.cancel()
			cur.gone = true
		}
		if !present && !mirrored(p) {
			delete(lf.logs, p.Name) // a Deployment's or DaemonSet's pod: its name does not come back
		}
		return
	}
	if p.Spec.NodeName == "" || container == "" || (cur != nil && !cur.gone) || lf.ctx.Err() != nil {
		return
	}
	pl := lf.logs[p.Name]
	if pl == nil {
		pl = newPodLog()
		lf.logs[p.Name] = pl
	}
	ctx, cancel := context.WithCancel(lf.ctx)
	f := &follower{cancel: cancel, done: make(chan struct{})}
	lf.running[p.Name] = f
	t := logTarget{pod: p.Name, container: container, manager: manager, node: p.Spec.NodeName}
	// Held while the informers run (watchKube's own count): Stop waits.
	lf.ob.wg.Add(1)
	go func(prev *follower) {
		defer lf.ob.wg.Done()
		defer close(f.done)
		defer cancel()
		defer lf.forget(p.Name, f)
		if prev != nil {
			<-prev.done // the pod's last reader has let go of pl
		}
		lf.follow(ctx, t, pl)
	}(cur)
}

// refusedLogs: the API server refused the observer pods/log (RBAC's
// "cannot get resource \"pods/log\""), as opposed to a kubelet refusing
// the API server a moment while its node joins, which passes.
func refusedLogs(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), `cannot get resource "pods/log"`)
}

// forget drops a follower that ended because its pod went, unless a
// newer one follows the pod already.
func (lf *logFollowers) forget(pod string, f *follower) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.running[pod] == f && f.gone {
		delete(lf.running, pod)
	}
}

// mirrored: a static pod's mirror, made again under the same name when
// its kubelet restarts, whose log resumes where it was read to.
func mirrored(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// follow reads the pod's log, reopening it where it was read to whenever a
// stream ends (a container restarted, a connection cut), until ctx ends.
func (lf *logFollowers) follow(ctx context.Context, t logTarget, pl *podLog) {
	wait, said := lf.retry.min, ""
	for {
		n, err := lf.stream(ctx, t, pl)
		if ctx.Err() != nil {
			return
		}
		// A container not started yet or restarting (400), a pod or node
		// going (404), a kubelet restarting (a failed dial): each soon
		// passes, and the pod's deletion ends the follower. Only a refusal
		// is the user's to mend (no pods/log): said once.
		if refusedLogs(err) && err.Error() != said {
			said = err.Error()
			lf.ob.warnf("observer: %v (retrying; the managers' logged errors are evidence the checks cite)", err)
		}
		if n > 0 {
			wait = lf.retry.min
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		wait = min(2*wait, lf.retry.max)
	}
}

// stream reads one stream of the pod's log to its end: the lines it
// brought that were not read before.
func (lf *logFollowers) stream(ctx context.Context, t logTarget, pl *podLog) (int, error) {
	rc, err := lf.open(ctx, t.pod, t.container, pl.from(lf.ob.started.Add(-clockSkew)))
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	pl.reopened()
	n := 0
	err = eachLine(rc, maxLogLine, func(line string) {
		rest, at, fresh := pl.fresh(line)
		if !fresh {
			return
		}
		n++
		if e, ok := pl.logged(t, rest, at, lf.ob.started); ok {
			lf.ob.emit(e)
		}
	})
	if err != nil {
		return n, fmt.Errorf("reading the log of kube-system/%s: %w", t.pod, err)
	}
	return n, nil
}
