package observe

import (
	"context"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloud/api"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/verify/timeline"
)

// StartFor observes the cluster a migration runs on: its leases, its
// migrated controllers plus the cloud-controller-manager's node
// initialiser, and its simulated cloud when it has one.
func StartFor(ctx context.Context, env *migrate.Env, tl *timeline.Writer) (*Observer, error) {
	rest, err := env.Cluster.RESTConfig()
	if err != nil {
		return nil, err
	}
	var cloud *api.Client
	if url, err := cloudcluster.URL(env.Spec.Cluster); err == nil {
		cloud = api.NewClient(url, "handover-observer")
	}
	return Start(ctx, Options{
		Cluster: env.Cluster, Client: env.Client, REST: rest, Cloud: cloud, Timeline: tl, Logger: env.Logger,
		Leases:      []string{env.Spec.LeaderName, "kube-controller-manager", "cloud-controller-manager"},
		Controllers: append(env.Spec.Controllers(), "cloud-node-controller"),
	}), nil
}
