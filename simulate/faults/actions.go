package faults

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/waits"
)

// leaderKill SIGKILLs the manager process holding the migration lease, as a
// crash would; its kubelet restarts it.
func (in *Injector) leaderKill(ctx context.Context) (string, error) {
	id, err := in.holder(ctx, in.o.LeaderName)
	if err != nil || id == "" {
		return "", fmt.Errorf("no holder of the migration lease %s to kill: %v", in.o.LeaderName, err)
	}
	node, _, _ := strings.Cut(id, "_")
	manager := "kube-controller-manager"
	if h, _ := in.holder(ctx, "cloud-controller-manager"); h == id {
		manager = "cloud-controller-manager"
	}
	target := manager + "@" + node
	in.started(target, fmt.Sprintf("killing %s on %s, holder of %s", manager, node, in.o.LeaderName))
	// argv[0] is the binary, with or without its directory.
	if _, err := in.o.Cluster.Exec(ctx, node, "pkill", "-KILL", "-f", "^([^ ]*/)?"+manager+"( |$)"); err != nil {
		return target, fmt.Errorf("killing %s on %s: %w", manager, node, err)
	}
	return target, nil
}

// nodeStop stops the control-plane node of the migration lease's holder
// and lets it go on after the fault's duration. It freezes the node (docker
// pause: every process in it stopped at once, its address kept, connections
// to it hanging as to a machine that lost power) rather than stopping the
// container: Docker gives a stopped container's address to the next one
// started (a load balancer, under Service churn), and a kind node does not
// survive a new address (etcd and its certificates are bound to it). A
// resumed leader whose lease has expired must notice before it acts.
func (in *Injector) nodeStop(ctx context.Context) (string, error) {
	id, err := in.holder(ctx, in.o.LeaderName)
	if err != nil || id == "" {
		return "", fmt.Errorf("no holder of the migration lease %s: %v", in.o.LeaderName, err)
	}
	node, _, _ := strings.Cut(id, "_")
	in.started(node, fmt.Sprintf("stopping control plane %s (holder of %s) for %s", node, in.o.LeaderName, in.s.Duration))
	in.emit(timeline.Event{Kind: timeline.NodeDisruptStart, Node: node, Message: "fault " + CPNodeStop})
	defer in.emit(timeline.Event{Kind: timeline.NodeDisruptEnd, Node: node})
	cli, err := engine.Client()
	if err != nil {
		return node, err
	}
	if err := cli.ContainerPause(ctx, node); err != nil {
		return node, fmt.Errorf("stopping %s: %w", node, err)
	}
	sleep(ctx, in.s.Duration)
	// Resume it even when the run is being cut short: a stopped control
	// plane must not be left behind.
	if err := cli.ContainerUnpause(context.Background(), node); err != nil {
		return node, fmt.Errorf("resuming %s: %w", node, err)
	}
	return node, in.waitReady(ctx, node)
}

// waitReady waits until the node's kubelet renewed its lease after the
// resume and the Node is Ready.
func (in *Injector) waitReady(ctx context.Context, node string) error {
	resumed := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, waits.Of(ctx, WaitNodeResumed), true, func(ctx context.Context) (bool, error) {
		l, err := in.o.Client.CoordinationV1().Leases("kube-node-lease").Get(ctx, node, metav1.GetOptions{})
		if err != nil || l.Spec.RenewTime == nil || l.Spec.RenewTime.Time.Before(resumed) {
			return false, nil
		}
		n, err := in.o.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue, nil
			}
		}
		return false, nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s not back (lease renewed, Ready) within 3m of its resume: %w", node, err)
	}
	return nil
}

// cloudThrottle makes the cloud API slow, rate-limited and failing for the
// fault's duration, then restores it.
func (in *Injector) cloudThrottle(ctx context.Context) (string, error) {
	if in.o.Cloud == nil {
		return "", errNoCloud
	}
	f := api.Faults{ThrottleQPS: 2, Latency: api.Duration{Duration: 200 * time.Millisecond}, ErrorRate: map[string]float64{"*": 0.2}}
	in.started(timeline.FaultTargetCloud, fmt.Sprintf("cloud API throttled to 2 QPS per caller, +200ms, 20%% of calls failing, for %s", in.s.Duration))
	return timeline.FaultTargetCloud, in.holdKnobs(ctx, f)
}

// holdKnobs sets the cloud's knobs for the fault's duration and then
// clears them; with no duration they stay until the cluster goes.
func (in *Injector) holdKnobs(ctx context.Context, f api.Faults) error {
	if err := in.o.Cloud.SetFaults(ctx, f); err != nil {
		return err
	}
	if in.s.Duration == 0 {
		return nil
	}
	sleep(ctx, in.s.Duration)
	if err := in.o.Cloud.SetFaults(context.Background(), api.Faults{}); err != nil {
		return fmt.Errorf("restoring the cloud API: %w", err)
	}
	return nil
}

// ccmDeniedRoutes takes the route permissions from the
// cloud-controller-manager's credentials for the rest of the run (the
// cluster's deletion ends them), or for the fault's duration when given.
func (in *Injector) ccmDeniedRoutes(ctx context.Context) (string, error) {
	return in.ccmCredentials(ctx, "the cloud refuses the cloud-controller-manager's CreateRoute and DeleteRoute (403)",
		api.Faults{Deny: map[string][]string{ccmCaller: {"CreateRoute", "DeleteRoute"}}})
}

// otherRegion is a region with none of the cluster's instances: the
// simulated cloud puts every instance in sim-region-1 (cloudserver.Region; a
// test holds the two apart).
const otherRegion = "sim-region-2"

// ccmOtherRegion scopes the cloud-controller-manager's credentials to
// another region for the rest of the run, or for the fault's duration.
func (in *Injector) ccmOtherRegion(ctx context.Context) (string, error) {
	return in.ccmCredentials(ctx, "the cloud-controller-manager's credentials see region "+otherRegion+" only: none of the cluster's instances is found (404)",
		api.Faults{Scope: map[string]string{ccmCaller: otherRegion}})
}

// ccmCaller is the cloud-controller-manager as the cloud knows its calls.
const ccmCaller = "cloud-controller-manager"

// ccmCredentials changes what the cloud-controller-manager's credentials
// may do by the knobs f, held as holdKnobs holds them; what says so on the
// timeline.
func (in *Injector) ccmCredentials(ctx context.Context, what string, f api.Faults) (string, error) {
	if in.o.Cloud == nil {
		return "", errNoCloud
	}
	in.started(ccmCaller, what)
	return ccmCaller, in.holdKnobs(ctx, f)
}

// cloudOutage makes every cloud API call fail with 503 for the fault's
// duration (an outage window the cloud itself ends).
func (in *Injector) cloudOutage(ctx context.Context) (string, error) {
	if in.o.Cloud == nil {
		return "", errNoCloud
	}
	now := time.Now()
	in.started(timeline.FaultTargetCloud, fmt.Sprintf("cloud API down (every call 503) for %s", in.s.Duration))
	return timeline.FaultTargetCloud, in.holdKnobs(ctx, api.Faults{Outages: []api.Window{{Start: now, End: now.Add(in.s.Duration)}}})
}

// CloudLagBy is how far the cloud-lag fault has the managers' view of the
// instances trail the cloud's. EC2 gives no figure; its guide has callers
// back off from "a couple of seconds" up to "about five minutes" before
// trusting an answer ("Eventual consistency in the Amazon EC2 API", EC2
// developer guide): 30 s is well within that.
const CloudLagBy = 30 * time.Second

// cloudLag makes the cloud's instance API eventually consistent for the
// fault's duration (the lag knob), then makes it consistent again.
func (in *Injector) cloudLag(ctx context.Context) (string, error) {
	if in.o.Cloud == nil {
		return "", errNoCloud
	}
	in.started(timeline.FaultTargetCloud, fmt.Sprintf("cloud API eventually consistent: instances appear to the managers and kubelets %s after their launch and go %s after their termination, for %s", CloudLagBy, CloudLagBy, in.s.Duration))
	return timeline.FaultTargetCloud, in.holdKnobs(ctx, api.Faults{Lag: api.Duration{Duration: CloudLagBy}})
}
