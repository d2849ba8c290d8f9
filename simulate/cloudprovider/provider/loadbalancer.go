package provider

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// GetLoadBalancerName is the cloud's name for a Service's load balancer,
// in the form of the provider it names things as.
func (c *Cloud) GetLoadBalancerName(_ context.Context, clusterName string, svc *v1.Service) string {
	name, _ := c.as.LoadBalancerOf(clusterName, cloudprovider.DefaultLoadBalancerName(svc))
	return name
}

// GetLoadBalancer reports a Service's load balancer, if any.
func (c *Cloud) GetLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	lb, err := c.client.LoadBalancer(ctx, ctrlService, c.GetLoadBalancerName(ctx, clusterName, svc))
	if err != nil || lb == nil {
		return nil, false, err
	}
	return status(lb), true, nil
}

// EnsureLoadBalancer creates or updates a Service's load balancer.
func (c *Cloud) EnsureLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	spec, err := c.lbSpec(clusterName, svc, nodes)
	if err != nil {
		return nil, err
	}
	lb, err := c.client.EnsureLoadBalancer(ctx, ctrlService, c.GetLoadBalancerName(ctx, clusterName, svc), spec)
	if err != nil {
		return nil, err
	}
	return status(lb), nil
}

// UpdateLoadBalancer changes a load balancer's backend nodes.
// It must not create one: the service controller's node sync calls it for
// Services it has cached, including one being deleted, and then asks
// GetLoadBalancer whether the error matters.
func (c *Cloud) UpdateLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node) error {
	spec, err := c.lbSpec(clusterName, svc, nodes)
	if err != nil {
		return err
	}
	_, err = c.client.UpdateLoadBalancer(ctx, ctrlService, c.GetLoadBalancerName(ctx, clusterName, svc), spec)
	return err
}

// EnsureLoadBalancerDeleted deletes a Service's load balancer if it exists.
func (c *Cloud) EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, svc *v1.Service) error {
	return c.client.DeleteLoadBalancer(ctx, ctrlService, c.GetLoadBalancerName(ctx, clusterName, svc))
}

func (c *Cloud) lbSpec(clusterName string, svc *v1.Service, nodes []*v1.Node) (api.LoadBalancerSpec, error) {
	_, group := c.as.LoadBalancerOf(clusterName, cloudprovider.DefaultLoadBalancerName(svc))
	spec := api.LoadBalancerSpec{Service: svc.Namespace + "/" + svc.Name, Group: group}
	for _, p := range svc.Spec.Ports {
		if p.NodePort == 0 {
			return spec, fmt.Errorf("service %s port %d has no node port yet", spec.Service, p.Port)
		}
		spec.Ports = append(spec.Ports, api.Port{Name: p.Name, Protocol: string(p.Protocol), Port: p.Port, NodePort: p.NodePort})
	}
	for _, n := range nodes {
		for _, a := range n.Status.Addresses {
			if a.Type == v1.NodeInternalIP {
				spec.Nodes = append(spec.Nodes, a.Address)
				break
			}
		}
	}
	return spec, nil
}

func status(lb *api.LoadBalancer) *v1.LoadBalancerStatus {
	if lb.IP == "" {
		return &v1.LoadBalancerStatus{}
	}
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.IP}}}
}
