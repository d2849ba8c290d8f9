package main

import (
	"context"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloud/api"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/verify/observe"
	"github.com/handover-sh/handover/verify/timeline"
)

// observedControllers are the controllers whose activity is recorded: the
// migrated ones and the cloud-controller-manager's own node initialiser.
func observedControllers(s migrate.Spec) []string {
	return append(s.Controllers(), "cloud-node-controller")
}

func startObserver(ctx context.Context, env *migrate.Env, tl *timeline.Writer) (*observe.Observer, error) {
	rest, err := env.Cluster.RESTConfig()
	if err != nil {
		return nil, err
	}
	var cloud *api.Client
	if url, err := cloudcluster.URL(env.Spec.Cluster); err == nil {
		cloud = api.NewClient(url, "handover-observer")
	}
	return observe.Start(ctx, observe.Options{
		Cluster: env.Cluster, Client: env.Client, REST: rest, Cloud: cloud, Timeline: tl, Logger: env.Logger,
		Leases:      []string{env.Spec.LeaderName, "kube-controller-manager", "cloud-controller-manager"},
		Controllers: observedControllers(env.Spec),
	}), nil
}
