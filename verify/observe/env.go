package observe

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/simulate/cloud/api"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/verify/timeline"
)

// Target is a cluster a migration runs on, as the observers need it.
type Target struct {
	Cluster *kindcluster.Cluster
	Client  kubernetes.Interface
	Logger  log.Logger
	// LeaderName is the migration lease.
	LeaderName string
	// Controllers are the controllers the migration moves.
	Controllers []string
}

// StartFor observes the cluster a migration runs on: its leases, its
// migrated controllers plus the cloud-controller-manager's node
// initialiser, and its simulated cloud when it has one.
func StartFor(ctx context.Context, t Target, tl *timeline.Writer) (*Observer, error) {
	rest, err := t.Cluster.RESTConfig()
	if err != nil {
		return nil, err
	}
	var cloud *api.Client
	if url, err := cloudcluster.URL(t.Cluster.Name); err == nil {
		cloud = api.NewClient(url, "handover-observer")
	}
	return Start(ctx, Options{
		Cluster: t.Cluster, Client: t.Client, REST: rest, Cloud: cloud, Timeline: tl, Logger: t.Logger,
		Leases:      []string{t.LeaderName, "kube-controller-manager", "cloud-controller-manager"},
		Controllers: append(append([]string(nil), t.Controllers...), "cloud-node-controller"),
	}), nil
}
