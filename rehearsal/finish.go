package rehearsal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/internal/interrupt"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/scale"
	"github.com/handover-sh/handover/waits"
)

// WaitLogs bounds collecting a failed rehearsal's cluster logs: a node
// that no longer answers must not keep the cluster alive.
const WaitLogs = "failure-logs"

// WaitObserved bounds the observers' initial lists of Nodes and leases,
// which the procedure waits for: they are the node checks' "before".
const WaitObserved = "observers-listed"

func init() {
	waits.Register("rehearsal", waits.Wait{Name: WaitLogs, Default: 2 * time.Minute, Doc: "collecting a failed rehearsal's cluster logs, before the cluster is deleted anyway"},
		waits.Wait{Name: WaitObserved, Default: 30 * time.Second, Doc: "the observers list the Nodes and leases before the procedure starts (the node checks compare with that state)"})
}

// finisher ends a rehearsal: logs of a failure, then the cluster deleted
// unless kept.
type finisher struct {
	p          *Plan
	cluster    *kindcluster.Cluster
	kubeconfig string
	self       string
	logger     log.Logger
}

// finish runs after the rehearsal. Interrupted (ctx cancelled: Ctrl-C, a
// CI runner's cancel), it deletes first, in a process of its own that
// outlives this one, and collects no node logs: a runner kills a few
// seconds after its cancel. Failed, it collects the logs within
// the failure-logs wait, then deletes.
func (f finisher) finish(ctx context.Context, failed bool) {
	name := f.p.Topology.Name
	if f.p.Config.Keep {
		_ = cloudcluster.Release(name)
		f.logger.V(0).Infof("Cluster %s kept: KUBECONFIG=%s; delete it with `handover cluster delete --name %s --kubeconfig %s`", name, f.kubeconfig, name, f.kubeconfig)
		return
	}
	if ctx.Err() != nil {
		f.logger.V(0).Infof(" • Interrupted: deleting cluster %s first (node logs are not collected; the timeline and the cloud's audit are kept) ...", name)
		if err := f.deleteDetached(ctx); err != nil {
			f.logger.Warnf("%v", err)
		}
		return
	}
	if failed {
		f.collectLogs(ctx)
	}
	if err := cloudcluster.Delete(context.Background(), name, f.kubeconfig, f.logger); err != nil {
		f.logger.Warnf("deleting cluster %s: %v (the next run, or `handover cluster prune`, removes what is left)", name, err)
		return
	}
	_ = os.Remove(f.kubeconfig) // it names only the deleted cluster
}

func (f finisher) collectLogs(ctx context.Context) {
	dir := filepath.Join(f.p.Config.Out, "logs")
	logsTimeout := waits.Of(ctx, WaitLogs)
	f.logger.V(0).Infof(" • Collecting cluster logs into %s (at most %s) ...", dir, logsTimeout)
	done := make(chan error, 1)
	go func() { done <- f.cluster.CollectLogs(dir) }()
	select {
	case err := <-done:
		if err != nil {
			f.logger.Warnf("collecting logs: %v", err)
		}
	case <-time.After(logsTimeout):
		f.logger.Warnf("collecting logs: not done within %s; deleting the cluster anyway", logsTimeout)
	case <-ctx.Done():
		f.logger.Warnf("collecting logs: interrupted; deleting the cluster")
	}
	lctx, cancel := context.WithTimeout(context.Background(), logsTimeout)
	defer cancel()
	if err := scale.CollectLogs(lctx, f.p.Topology.Name, dir); err != nil {
		f.logger.Warnf("collecting kwok's logs: %v", err)
	}
}

// deleteDetached runs `handover cluster delete` in its own session (a
// terminal's second Ctrl-C or a signal to this process group does not
// reach it), its output in the out directory, and waits for it; a second
// signal exits this process at once and leaves it running.
func (f finisher) deleteDetached(ctx context.Context) error {
	logPath := filepath.Join(f.p.Config.Out, "cluster-delete.log")
	logf, err := privatefs.Rewrite(logPath)
	if err != nil {
		return fmt.Errorf("deleting cluster %s: %w", f.p.Topology.Name, err)
	}
	defer logf.Close()
	cmd := exec.Command(f.self, "cluster", "delete", "--name", f.p.Topology.Name, "--kubeconfig", f.kubeconfig)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("deleting cluster %s: %w", f.p.Topology.Name, err)
	}
	interrupt.FromContext(ctx).CleanupStarted()
	f.logger.V(0).Infof("   deleting in process %d (log: %s); a second signal exits now and leaves it running", cmd.Process.Pid, logPath)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("deleting cluster %s: %w (log: %s; the next run, or `handover cluster prune`, removes what is left)", f.p.Topology.Name, err, logPath)
	}
	_ = os.Remove(f.kubeconfig)
	return nil
}
