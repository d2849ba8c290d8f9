package cloudcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/internal/procs"
)

// A cluster that only lives as long as the handover process that made it (a
// rehearsal's, or one being created) is claimed by that process: the claim
// names the process by pid and start time. A process killed with SIGKILL
// runs no cleanup, so its claim stays behind and names a dead process: the
// cluster is an orphan, and the next run removes it. A create whose cleanup
// failed keeps its claim for the same reason. Clusters nobody claims
// (made by `cluster create`, kept with --keep, or not handover's) are never
// touched.

// Owner is the process that claimed a cluster.
type Owner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // clock ticks since boot
	What  string `json:"what"`  // e.g. "rehearse"
	// Kubeconfig is the file the cluster's entry was written to.
	Kubeconfig string `json:"kubeconfig,omitempty"`
}

func clustersDir() string { return filepath.Join(nodeimage.DefaultCacheDir(), "clusters") }

func ownerFile(cluster string) string { return filepath.Join(clustersDir(), cluster, "owner.json") }

// Claim records that this process owns cluster until Release. It refuses a
// cluster claimed by a process that still runs.
func Claim(cluster, what, kubeconfig string) error {
	if o, ok := readOwner(cluster); ok && procs.Alive(o.PID, o.Start) {
		return fmt.Errorf("cluster %q is in use by handover %s (pid %d): wait for it, or use another --name", cluster, o.What, o.PID)
	}
	start, err := procs.StartTime(os.Getpid())
	if err != nil {
		return fmt.Errorf("claiming cluster %q: %w", cluster, err)
	}
	if err := privatefs.MkdirAll(filepath.Dir(ownerFile(cluster))); err != nil {
		return err
	}
	raw, _ := json.Marshal(Owner{PID: os.Getpid(), Start: start, What: what, Kubeconfig: kubeconfig})
	return privatefs.WriteFile(ownerFile(cluster), raw)
}

// Release gives up the claim: the cluster is deleted, or kept on purpose.
func Release(cluster string) error {
	if err := os.Remove(ownerFile(cluster)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func readOwner(cluster string) (Owner, bool) {
	var o Owner
	raw, err := os.ReadFile(ownerFile(cluster))
	if err != nil || json.Unmarshal(raw, &o) != nil || o.PID <= 0 {
		return o, false
	}
	return o, true
}

// Orphans are the clusters whose claiming process is gone.
func Orphans() []string {
	return claimed(func(o Owner) bool { return !procs.Alive(o.PID, o.Start) })
}

// Held are the clusters this process claims: what the next run removes
// should it end now.
func Held() []string {
	start, err := procs.StartTime(os.Getpid())
	if err != nil {
		return nil
	}
	return claimed(func(o Owner) bool { return o.PID == os.Getpid() && o.Start == start })
}

// claimed are the claimed clusters whose owner is as asked, by name.
func claimed(owner func(Owner) bool) []string {
	entries, err := os.ReadDir(clustersDir())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if o, ok := readOwner(e.Name()); ok && owner(o) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Prune deletes every orphan with all it made on this host (nodes, load
// balancers, kwok, its simulated cloud, the kind network and kernel
// settings once no cluster is left) and says which it removed.
func Prune(ctx context.Context, logger log.Logger) ([]string, error) {
	var pruned []string
	var errs []error
	for _, name := range Orphans() {
		o, _ := readOwner(name)
		logger.V(0).Infof("Removing cluster %q, left by handover %s (pid %d) that ended without cleaning up ...", name, o.What, o.PID)
		if err := Delete(ctx, name, o.Kubeconfig, logger); err != nil {
			errs = append(errs, fmt.Errorf("removing orphaned cluster %q: %w", name, err))
			continue
		}
		pruned = append(pruned, name)
	}
	return pruned, errors.Join(errs...)
}
