package rehearsal

import (
	"context"
	"fmt"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/verify/observe"
)

// simCloudView is the simulated cloud as the observers read a cloud
// (observe.Cloud): its audit, its load balancers and its instances in the
// observers' terms, so verify imports nothing of the simulated cloud.
// Instances are named as their Nodes are (names: instance → Node, and
// back), since a cloud's kubelet may name a Node otherwise than its
// instance.
type simCloudView struct {
	c     *api.Client
	names nodeNamer
}

// nodeNamer translates between instance (node container) and Node names.
type nodeNamer interface {
	NodeName(ctx context.Context, container string) (string, bool, error)
	ContainerOf(ctx context.Context, node string) (string, error)
}

// node is the Node name of an instance ("" stays "").
func (v simCloudView) node(ctx context.Context, instance string) string {
	if instance == "" || v.names == nil {
		return instance
	}
	name, _, _ := v.names.NodeName(ctx, instance)
	return name
}

func (v simCloudView) CallsAfter(ctx context.Context, n int) ([]observe.CloudCall, int, error) {
	entries, next, err := cloudserver.AuditAfter(ctx, v.c, n)
	out := make([]observe.CloudCall, 0, len(entries))
	for _, a := range entries {
		out = append(out, observe.CloudCall{Time: a.Time, Component: a.Component, Controller: a.Controller,
			Operation: a.Operation, Resource: a.Resource, Node: a.Node, Status: a.Status, Fault: a.Fault})
	}
	return out, next, err
}

func (v simCloudView) LoadBalancers(ctx context.Context) ([]observe.CloudLB, error) {
	lbs, err := v.c.LoadBalancers(ctx, "")
	out := make([]observe.CloudLB, 0, len(lbs))
	for _, lb := range lbs {
		out = append(out, observe.CloudLB{Name: lb.Name, IP: lb.IP, Service: lb.Spec.Service, Backends: lb.Spec.Nodes, Health: lbHealth(lb.Spec.HealthCheck),
			Dropped: lb.Spec.Dropped, Draining: drainingAttr(lb.Spec.Draining)})
	}
	return out, err
}

func (v simCloudView) HasInstance(ctx context.Context, name string) (bool, error) {
	if v.names != nil {
		var err error
		if name, err = v.names.ContainerOf(ctx, name); err != nil {
			return false, err
		}
	}
	_, err := v.c.Instance(ctx, "", name)
	if api.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func (v simCloudView) Routes(ctx context.Context) ([]observe.CloudRoute, error) {
	routes, err := v.c.Routes(ctx, "")
	out := make([]observe.CloudRoute, 0, len(routes))
	for _, r := range routes {
		out = append(out, observe.CloudRoute{Destination: r.DestinationCIDR, Target: v.node(ctx, r.TargetInstance), Blackhole: r.Blackhole})
	}
	return out, err
}

// ResolveLB is the address of the load balancer an ELB DNS name of the
// cloud's AWS face stands for: what a client's resolver would answer.
func (v simCloudView) ResolveLB(ctx context.Context, hostname string) (string, error) {
	name, ok := amazon.ELBNameOfDNS(hostname)
	if !ok {
		return "", fmt.Errorf("%s names no load balancer of the simulated cloud", hostname)
	}
	lb, err := v.c.LoadBalancer(ctx, "", name)
	if err != nil {
		return "", err
	}
	if lb == nil { // deleted since its Service named it (the load's churn deletes Services)
		return "", fmt.Errorf("%s: the simulated cloud has no load balancer %s", hostname, name)
	}
	return lb.IP, nil
}

// lbHealth is a cloud load balancer's health check as the observers
// record it; nil for the simulated provider's own.
func lbHealth(hc *api.HealthCheck) *observe.LBHealth {
	if hc == nil {
		return nil
	}
	target := fmt.Sprintf("%s:%d%s", hc.Protocol, hc.Port, hc.Path)
	return &observe.LBHealth{Target: target, Interval: time.Duration(hc.Interval) * time.Second, Timeout: time.Duration(hc.Timeout) * time.Second,
		Healthy: int(hc.Healthy), Unhealthy: int(hc.Unhealthy)}
}

// drainingAttr is a load balancer's connection draining as the timeline
// says it (timeline.LBDraining).
func drainingAttr(d *api.Draining) string {
	switch {
	case d == nil:
		return ""
	case !d.Enabled:
		return "off"
	}
	return (time.Duration(d.Timeout) * time.Second).String()
}
