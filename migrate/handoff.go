package migrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// handMainLeasesOver prepares the removal of node when its managers hold
// the migration lease: a manager on it that holds only its own main lease
// (on rollback, the version-N+1 kube-controller-manager beside the
// cloud-controller-manager that holds the migration lease) is stopped
// first, and another instance takes that main lease while the controllers
// still run. A manager competes for the migration lease only once it
// holds its main lease, and a new candidate must watch the migration lease
// a full lease duration before it may take it; removed together, the two
// leases cost two lease durations of coverage gap, handed over this way
// one.
func (e *Env) handMainLeasesOver(ctx context.Context, node string) error {
	migration, err := e.LeaseHolder(ctx, e.Spec.LeaderName)
	if err != nil || holderNode(migration) != node {
		return nil // no lease, or not this node's: nothing to prepare
	}
	holders := map[string]string{}
	for _, component := range []string{lmconfig.KCM, lmconfig.CCM} {
		if h, err := e.LeaseHolder(ctx, mainLease[component]); err == nil {
			holders[component] = h
		}
	}
	for _, component := range besideMigration(node, migration, holders) {
		if others, err := e.runsElsewhere(ctx, node, component); err != nil || !others {
			continue
		}
		e.Logger.V(0).Infof("     %s on %s holds its main lease beside the migration lease's holder: stopping it first so another takes that lease", component, node)
		if err := e.stopManager(ctx, node, component); err != nil {
			return err
		}
		mainLeaseWait := e.Spec.Intervals.Of(IntervalMainLeaseHandoff)
		wctx, cancel := context.WithTimeout(ctx, mainLeaseWait)
		err = e.poll(wctx, func(ctx context.Context, e *Env) (bool, error) {
			h, err := e.LeaseHolder(ctx, mainLease[component])
			return err == nil && h != "" && holderNode(h) != node, nil
		})
		cancel()
		if err != nil {
			return fmt.Errorf("waiting %s for another %s to take lease %s from %s: %w", mainLeaseWait, component, mainLease[component], node, err)
		}
	}
	return nil
}

// besideMigration lists the components whose main lease is held on node
// by an instance other than the migration lease's holder, in a stable order.
func besideMigration(node, migration string, mainHolders map[string]string) []string {
	var out []string
	for _, component := range []string{lmconfig.KCM, lmconfig.CCM} {
		if h := mainHolders[component]; h != "" && h != migration && holderNode(h) == node {
			out = append(out, component)
		}
	}
	return out
}

// runsElsewhere is true when a control plane other than node runs component.
func (e *Env) runsElsewhere(ctx context.Context, node, component string) (bool, error) {
	cps, err := e.controlPlanes(ctx)
	if err != nil {
		return false, err
	}
	for _, cp := range cps {
		if cp.Name != node && (component == lmconfig.KCM || cp.HasCCM) {
			return true, nil
		}
	}
	return false, nil
}

// holderNode is the node of a lease holder identity "node_uuid".
func holderNode(identity string) string {
	return strings.SplitN(identity, "_", 2)[0]
}

// stopManager moves a manager's manifest aside, so the kubelet stops it.
// Moved, not deleted: the node still counts as a control plane of its
// version until it is removed (readStaticPod), and a failed removal can
// start it again (restartStopped).
func (e *Env) stopManager(ctx context.Context, node, component string) error {
	m, err := e.Cluster.ReadFile(ctx, node, manifestsDir+component+".yaml")
	if err != nil {
		return fmt.Errorf("stopping %s on %s: %w", component, node, err)
	}
	if err := e.Cluster.WriteFile(ctx, node, stoppedDir+component+".yaml", m); err != nil {
		return fmt.Errorf("stopping %s on %s: %w", component, node, err)
	}
	if err := e.Cluster.RemoveFile(ctx, node, manifestsDir+component+".yaml"); err != nil {
		return fmt.Errorf("stopping %s on %s: %w", component, node, err)
	}
	return nil
}

// restartStopped undoes a removal that failed after stopManager: each
// manager moved aside on a control plane of the side is put back, so the
// node runs as before and a re-run picks it again whole.
func (e *Env) restartStopped(ctx context.Context, d side) error {
	cps, err := e.controlPlanes(ctx)
	if err != nil {
		return err
	}
	for _, cp := range onSide(cps, d) {
		for _, component := range []string{lmconfig.KCM, lmconfig.CCM} {
			m, err := e.Cluster.ReadFile(ctx, cp.Name, stoppedDir+component+".yaml")
			if err != nil {
				continue // none stopped
			}
			if err := e.Cluster.WriteFile(ctx, cp.Name, manifestsDir+component+".yaml", m); err != nil {
				return fmt.Errorf("restarting %s on %s: %w", component, cp.Name, err)
			}
			if err := e.Cluster.RemoveFile(ctx, cp.Name, stoppedDir+component+".yaml"); err != nil {
				return err
			}
			e.Logger.V(0).Infof("     restarted %s on %s", component, cp.Name)
		}
	}
	return nil
}

// undoRemoval is the Undo of the steps that remove a control plane.
func undoRemoval(d side) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error { return e.restartStopped(ctx, d) }
}
