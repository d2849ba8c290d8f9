package migrate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// mainLeaseWait bounds how long another instance takes a stopped
// manager's main lease: the lease duration (15 s) and retries.
const mainLeaseWait = time.Minute

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
		// Moved aside, not deleted: the node still counts as a control
		// plane of its version until it is removed (readStaticPod).
		if _, err := e.Cluster.Exec(ctx, node, "sh", "-c", "mkdir -p "+stoppedDir+" && mv -f "+manifestsDir+component+".yaml "+stoppedDir); err != nil {
			return fmt.Errorf("stopping %s on %s: %w", component, node, err)
		}
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
