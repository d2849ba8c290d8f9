package rehearsal

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/scale"
	"github.com/handover-sh/handover/timeline"
)

// prepareFleet brings up the plan's simulated fleet (none: a fleet that
// does nothing).
func prepareFleet(ctx context.Context, p *Plan, kc *kindcluster.Cluster, env *migrate.Env, tl *timeline.Writer, logger log.Logger) (*scale.Fleet, error) {
	o := scale.Options{Client: env.Client, Cluster: p.Spec.Cluster, StateDir: cloudcluster.StateDir(p.Spec.Cluster),
		Timeline: tl, Logger: logger, External: newestWorkerExternal(kc, env)}
	if p.Scale.None() {
		return scale.Prepare(ctx, o, p.Scale)
	}
	url, err := cloudcluster.URL(p.Spec.Cluster)
	if err != nil {
		return nil, fmt.Errorf("a simulated fleet needs the simulated cloud: %w", err)
	}
	o.CloudURL = url
	if o.Kubeconfig, err = kc.InternalKubeconfig(); err != nil {
		return nil, err
	}
	o.KubeletVersion = workerVersion(ctx, env)
	f, err := scale.Prepare(ctx, o, p.Scale)
	if err != nil {
		return nil, fmt.Errorf("preparing the simulated fleet: %w", err)
	}
	return f, nil
}

// newestWorkerExternal: a simulated node registers as the cluster's newest
// real worker's kubelet would.
func newestWorkerExternal(kc *kindcluster.Cluster, env *migrate.Env) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		ws, err := kc.Workers()
		if err != nil {
			return false, err
		}
		if len(ws) == 0 {
			return false, fmt.Errorf("the cluster has no worker to take the kubelets' mode from")
		}
		return env.KubeletExternal(ctx, ws[len(ws)-1].String())
	}
}

// workerVersion is the kubelet version the real workers report.
func workerVersion(ctx context.Context, env *migrate.Env) string {
	nodes, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "!node-role.kubernetes.io/control-plane"})
	if err != nil || len(nodes.Items) == 0 {
		return ""
	}
	return nodes.Items[0].Status.NodeInfo.KubeletVersion
}
