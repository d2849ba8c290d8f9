package kindcluster

import (
	"time"

	"github.com/handover-sh/handover/waits"
)

// The cluster's waits, in the one table (waits): overridable by a
// rehearsal file's intervals: for clusters slower or faster than this one.
const (
	WaitClusterReady    = "cluster-ready"
	WaitNodeJoin        = "cluster-node-join"
	WaitNodeContainer   = "node-containerd"
	WaitBalancerHealthy = "balancer-backends-healthy"
	WaitNodeFrozen      = "node-frozen"
	WaitNodeLeave       = "node-leave"
	WaitAPIServerDown   = "apiserver-down"
)

func init() {
	waits.Register("clusters/kindcluster",
		waits.Wait{Name: WaitClusterReady, Default: 5 * time.Minute, Doc: "a new cluster's nodes are Ready and its system pods run (cluster create --wait)"},
		waits.Wait{Name: WaitNodeJoin, Default: 3 * time.Minute, Doc: "a node added outside a procedure joins and is Ready"},
		waits.Wait{Name: WaitNodeContainer, Default: time.Minute, Doc: "containerd runs in a new node container"},
		// A joined control plane's API server may restart once: its first
		// service-IP repair fails while its etcd member is a learner, and
		// it exits after 60 s (kubernetes/kubernetes#141220).
		waits.Wait{Name: WaitBalancerHealthy, Default: 3 * time.Minute, Doc: "the API balancer's backends are exactly the control planes, all healthy"},
		waits.Wait{Name: WaitNodeFrozen, Default: 2 * time.Minute, Doc: "a command waits for a frozen (paused) node to answer"},
		waits.Wait{Name: WaitNodeLeave, Default: 5 * time.Minute, Doc: "a node being removed leaves (etcd member, drain, container)"},
		waits.Wait{Name: WaitAPIServerDown, Default: 90 * time.Second, Doc: "a removed control plane's API server stops accepting connections"},
	)
}
