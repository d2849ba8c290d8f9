package rehearsal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
	"github.com/handover-sh/handover/simulate/scale"
	"github.com/handover-sh/handover/timeline"
)

// prepareFleet brings up the plan's simulated fleet (none: a fleet that
// does nothing).
func prepareFleet(ctx context.Context, p *Plan, kc *kindcluster.Cluster, rc *rest.Config, env *migrate.Env, tl *timeline.Writer, logger log.Logger) (*scale.Fleet, error) {
	o := scale.Options{Client: env.Client, Cluster: p.Spec.Cluster, StateDir: cloudcluster.StateDir(p.Spec.Cluster),
		Timeline: tl, Logger: logger, External: joiningKubeletExternal(kc, env)}
	if p.Scale.None() {
		return scale.Prepare(ctx, o, p.Scale)
	}
	cloud, err := cloudcluster.Config(p.Spec.Cluster)
	if err != nil {
		return nil, fmt.Errorf("a simulated fleet needs the simulated cloud: %w", err)
	}
	o.CloudURL, o.CloudToken = cloud.URL, cloud.Token
	if o.CloudAdminToken, err = cloudcluster.AdminToken(p.Spec.Cluster); err != nil {
		return nil, err
	}
	if o.CloudAs, err = behaviour.Lookup(cloud.Profile); err != nil {
		return nil, fmt.Errorf("the simulated cloud's profile: %w", err)
	}
	if o.Client, err = fleetClient(rc); err != nil {
		return nil, err
	}
	if o.Kubeconfig, err = kc.InternalKubeconfig(); err != nil {
		return nil, fmt.Errorf("a kubeconfig for kwok: %w", err)
	}
	if o.KubeletVersion, err = workerVersion(ctx, env); err != nil {
		return nil, err
	}
	f, err := scale.Prepare(ctx, o, p.Scale)
	if err != nil {
		return nil, fmt.Errorf("preparing the simulated fleet: %w", err)
	}
	return f, nil
}

// joiningKubeletExternal: a simulated node registers as a worker joining now
// would, and a joining worker takes its kubelet's flags from a control
// plane (kindcluster.AddNode); the fleet follows the newest: in-tree until
// the procedure brings
// control planes whose kubelets run --cloud-provider=external, external
// from then on, so the cloud-controller-manager initialises the nodes
// that join after. Hundreds of nodes join in a minute while the fleet
// comes up, so an answer is reused for a few seconds; a node being
// replaced (its file unreadable for a moment) leaves the last answer
// standing.
func joiningKubeletExternal(kc *kindcluster.Cluster, env *migrate.Env) func(context.Context) (bool, error) {
	var (
		mu    sync.Mutex
		known bool
		last  bool
		at    time.Time
	)
	ask := func(ctx context.Context) (bool, error) {
		cps, err := kc.ControlPlanes()
		if err != nil {
			return false, err
		}
		if len(cps) == 0 {
			return false, fmt.Errorf("the cluster has no control plane to take the kubelets' flags from")
		}
		// kind numbers nodes control-plane, control-plane2, …
		// control-plane10: the longest name, then the greatest, is the
		// newest.
		newest := slices.MaxFunc(cps, func(a, b nodes.Node) int {
			return cmp.Or(cmp.Compare(len(a.String()), len(b.String())), cmp.Compare(a.String(), b.String()))
		})
		return env.KubeletExternal(ctx, newest.String())
	}
	return func(ctx context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if known && time.Since(at) < modeReuse {
			return last, nil
		}
		ext, err := ask(ctx)
		switch {
		case err == nil:
			known, last, at = true, ext, time.Now()
		case known:
			return last, nil
		default:
			return false, fmt.Errorf("how a joining node's kubelet runs: %w", err)
		}
		return last, nil
	}
}

// modeReuse is how long an answer about the workers' kubelets stands.
const modeReuse = 5 * time.Second

// workerVersion is the kubelet version the real workers report.
func workerVersion(ctx context.Context, env *migrate.Env) (string, error) {
	ns, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "!node-role.kubernetes.io/control-plane"})
	if err != nil {
		return "", fmt.Errorf("the workers' kubelet version: %w", err)
	}
	if len(ns.Items) == 0 {
		return "", fmt.Errorf("the cluster has no worker whose kubelet version simulated nodes could report")
	}
	return ns.Items[0].Status.NodeInfo.KubeletVersion, nil
}

// fleetQPS is the fleet's own client rate: hundreds of nodes, pods and
// Services created while it comes up, beyond client-go's default 5 a
// second (the procedure's client keeps that).
const fleetQPS = 50

func fleetClient(rc *rest.Config) (kubernetes.Interface, error) {
	cfg := rest.CopyConfig(rc)
	cfg.QPS, cfg.Burst, cfg.UserAgent = fleetQPS, fleetQPS, "handover-scale"
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("the fleet's API client: %w", err)
	}
	return c, nil
}
