package engine

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
)

// NetworkSpec is what `docker network create` is given.
type NetworkSpec struct {
	Name   string
	Subnet string // IPv4 CIDR
	// Internal: no gateway out of the network, so joining it never
	// changes a container's default route.
	Internal bool
	Labels   map[string]string
}

// CreateNetwork makes a bridge network, or leaves one of that name there.
func CreateNetwork(ctx context.Context, s NetworkSpec) error {
	cli, err := own()
	if err != nil {
		return err
	}
	_, err = cli.NetworkCreate(ctx, s.Name, network.CreateOptions{Driver: "bridge", Internal: s.Internal, Labels: s.Labels,
		IPAM: &network.IPAM{Config: []network.IPAMConfig{{Subnet: s.Subnet}}}})
	if err != nil && !cerrdefs.IsConflict(err) {
		return fmt.Errorf("creating network %s: %w", s.Name, err)
	}
	return nil
}

// ConnectNetwork joins a container to a network, as a second interface.
func ConnectNetwork(ctx context.Context, net, container string) error {
	cli, err := own()
	if err != nil {
		return err
	}
	if err := cli.NetworkConnect(ctx, net, container, nil); err != nil && !cerrdefs.IsConflict(err) {
		return fmt.Errorf("connecting %s to network %s: %w", container, net, err)
	}
	return nil
}

// RemoveNetworks removes the networks carrying a label ("label=value"),
// disconnecting whatever is still on them; a network already gone is not
// an error.
func RemoveNetworks(ctx context.Context, selector string) error {
	cli, err := own()
	if err != nil {
		return err
	}
	nets, err := cli.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("label", selector))})
	if err != nil {
		return fmt.Errorf("listing networks %s: %w", selector, err)
	}
	for _, n := range nets {
		in, err := cli.NetworkInspect(ctx, n.ID, network.InspectOptions{})
		if err != nil && !cerrdefs.IsNotFound(err) {
			return fmt.Errorf("inspecting network %s: %w", n.Name, err)
		}
		for id := range in.Containers {
			if err := cli.NetworkDisconnect(ctx, n.ID, id, true); err != nil && !cerrdefs.IsNotFound(err) {
				return fmt.Errorf("disconnecting %s from network %s: %w", id, n.Name, err)
			}
		}
		if err := cli.NetworkRemove(ctx, n.ID); err != nil && !cerrdefs.IsNotFound(err) {
			return fmt.Errorf("removing network %s: %w", n.Name, err)
		}
	}
	return nil
}
