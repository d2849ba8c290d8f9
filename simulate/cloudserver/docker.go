package cloudserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
)

// Labels on containers: kind's, on node containers; simcloud's own, on the
// load-balancer containers it runs (not kind's, so kind does not take them
// for nodes).
const (
	kindClusterLabel = "io.x-k8s.kind.cluster"
	kindRoleLabel    = "io.x-k8s.kind.role"
	ClusterLabel     = "dev.handover.cluster"
	LBLabel          = "dev.handover.loadbalancer"
)

// Region and zones of the simulated cloud.
const Region = "sim-region-1"

var zones = []string{Region + "a", Region + "b", Region + "c"}

// Zones are the cloud's zones.
func Zones() []string { return slices.Clone(zones) }

// DockerInstances lists a kind cluster's node containers as instances,
// with ProviderIDs in the form of the provider the cluster's cloud
// behaves as.
type DockerInstances struct {
	Cluster string
	As      behaviour.Behaviour
}

// List answers from the engine's event-fed list of the cluster's
// containers: the managers ask on every node sync, and a list per call
// (a docker process and an inspect per node) was most of what the cloud
// cost the machine.
func (d DockerInstances) List(ctx context.Context) ([]api.Instance, error) {
	out, _, err := d.ListLaunched(ctx)
	return out, err
}

// ListLaunched is List with each node container's creation time: its
// instance's launch.
func (d DockerInstances) ListLaunched(ctx context.Context) ([]api.Instance, map[string]time.Time, error) {
	set, err := engine.Watch(kindClusterLabel + "=" + d.Cluster)
	if err != nil {
		return nil, nil, err
	}
	all, err := set.List(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("listing node containers: %w", err)
	}
	out, launched := []api.Instance{}, map[string]time.Time{}
	for _, c := range all {
		role := c.Labels[kindRoleLabel]
		if role != "control-plane" && role != "worker" {
			continue
		}
		out = append(out, d.instance(c, role))
		launched[c.Name] = c.Created
	}
	return out, launched, nil
}

func (d DockerInstances) instance(c engine.Container, role string) api.Instance {
	in := api.Instance{Name: c.Name, ProviderID: d.As.ProviderIDOf(d.Cluster, c.Name), Type: "sim." + role,
		Region: Region, Zone: ZoneOf(c.Name), State: api.StateStopped,
		Addresses: []api.Address{{Type: "Hostname", Address: c.Name}}}
	if c.State == "running" {
		in.State = api.StateRunning
	}
	if c.IPv4 != "" {
		in.Addresses = append(interfaceAddresses(c), in.Addresses...)
	}
	return in
}

// interfaceAddresses are a node's InternalIPs, one per network it is on:
// its own on kind's network first (its primary interface), then those of
// networks connected to it later (further interfaces, as a VPC CNI
// attaches them), by network name.
func interfaceAddresses(c engine.Container) []api.Address {
	out := []api.Address{{Type: "InternalIP", Address: c.IPv4}}
	for _, name := range slices.Sorted(maps.Keys(c.Networks)) {
		if ip := c.Networks[name]; ip != "" && ip != c.IPv4 {
			out = append(out, api.Address{Type: "InternalIP", Address: ip})
		}
	}
	return out
}

// Terminate stops the node container, as a terminated VM stops its kubelet.
func (d DockerInstances) Terminate(ctx context.Context, name string) error {
	cli, err := engine.Client()
	if err != nil {
		return err
	}
	timeout := 5
	if err := cli.ContainerStop(ctx, name, container.StopOptions{Timeout: &timeout}); err != nil {
		return fmt.Errorf("stopping instance %s: %w", name, err)
	}
	return nil
}

// ZoneOf spreads instances over the zones by a hash of their name, so a
// node keeps its zone for life.
func ZoneOf(name string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return zones[int(h.Sum32())%len(zones)]
}

// LBImage is the image of load-balancer containers.
const LBImage = nodeimage.LBImage

// LBConfigPath is where a load-balancer container reads its configuration.
const LBConfigPath = "/etc/handover-lb/config.json"

// DockerLoadBalancers runs one proxy container per load balancer on the
// cluster's network; its address is the load balancer's IP.
type DockerLoadBalancers struct {
	Cluster string
	Network string // kind's network
}

func (d DockerLoadBalancers) container(name string) string {
	n := d.Cluster + "-lb-" + name
	if len(n) <= maxContainerName {
		return n
	}
	// Cut, distinct names would collide (the provider's names start with
	// the cluster's name): one container would serve, and go with, every
	// load balancer. A digest of the whole name keeps them apart.
	sum := sha256.Sum256([]byte(name))
	suffix := "-lb-" + hex.EncodeToString(sum[:])[:24]
	prefix := d.Cluster
	if len(prefix) > maxContainerName-len(suffix) {
		prefix = prefix[:maxContainerName-len(suffix)]
	}
	return prefix + suffix
}

// maxContainerName keeps a load balancer's container name a valid DNS
// label.
const maxContainerName = 63

// Ensure starts the container if needed and hands it its configuration.
func (d DockerLoadBalancers) Ensure(ctx context.Context, lb api.LoadBalancer) (string, error) {
	name := d.container(lb.Name)
	if _, err := containerIP(ctx, name); err != nil {
		spec := engine.RunSpec{Name: name, Image: LBImage, Network: d.Network, RestartRetries: 3,
			Labels: map[string]string{ClusterLabel: d.Cluster, LBLabel: lb.Name}}
		if err := engine.Run(ctx, spec); err != nil {
			return "", fmt.Errorf("starting load balancer %s: %w", name, err)
		}
	}
	cfg, err := json.Marshal(LBConfigFor(lb.Spec))
	if err != nil {
		return "", err
	}
	if err := copyInto(ctx, name, LBConfigPath, cfg); err != nil {
		return "", err
	}
	return containerIP(ctx, name)
}

// Delete removes the container; a missing one is fine.
func (d DockerLoadBalancers) Delete(ctx context.Context, name string) error {
	if err := engine.Remove(ctx, d.container(name)); err != nil {
		return fmt.Errorf("removing load balancer %s: %w", name, err)
	}
	return nil
}

func containerIP(ctx context.Context, name string) (string, error) {
	info, err := engine.Inspect(ctx, name)
	if err != nil {
		return "", err
	}
	ip := ""
	if info.NetworkSettings != nil {
		for _, n := range info.NetworkSettings.Networks {
			if n != nil && n.IPAddress != "" {
				ip = n.IPAddress
			}
		}
	}
	if ip == "" {
		return "", fmt.Errorf("container %s has no address", name)
	}
	return ip, nil
}

// copyInto writes data at path inside a container through the engine's
// archive API (no shell needed in the image, no process here).
func copyInto(ctx context.Context, name, path string, data []byte) error {
	tarball, err := singleFileTar(path, data)
	if err != nil {
		return err
	}
	cli, err := engine.Client()
	if err != nil {
		return err
	}
	if err := cli.CopyToContainer(ctx, name, "/", bytes.NewReader(tarball), container.CopyToContainerOptions{}); err != nil {
		return fmt.Errorf("writing %s into %s: %w", path, name, err)
	}
	return nil
}

// NoRoutes leaves programming to the nodes: each node's network agent pulls
// the route table from the cloud, the way a cloud's fabric applies it.
type NoRoutes struct{}

// Sync accepts every table.
func (NoRoutes) Sync(context.Context, []api.Route) error { return nil }
