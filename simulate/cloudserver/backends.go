package cloudserver

import (
	"context"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Instances finds the machines the cloud has (for kind: node containers).
type Instances interface {
	List(ctx context.Context) ([]api.Instance, error)
}

// Launcher is implemented by instance backends that know when each
// machine was launched (for kind: its container's creation): the lag knob
// dates an instance from then, not from the cloud's first listing of it,
// which may come later.
type Launcher interface {
	// ListLaunched is List with each instance's launch time by name.
	ListLaunched(ctx context.Context) ([]api.Instance, map[string]time.Time, error)
}

// Terminator is implemented by instance backends that can make a machine
// go away (a terminated VM stops running its kubelet).
type Terminator interface {
	Terminate(ctx context.Context, name string) error
}

// LoadBalancers makes load balancers carry traffic.
type LoadBalancers interface {
	// Ensure makes lb exist as specified and returns its address.
	Ensure(ctx context.Context, lb api.LoadBalancer) (ip string, err error)
	Delete(ctx context.Context, name string) error
}

// Routes programs the route table into the network.
type Routes interface {
	Sync(ctx context.Context, routes []api.Route) error
}

// Backends are what the cloud's resources are made of.
type Backends struct {
	Instances     Instances
	LoadBalancers LoadBalancers
	Routes        Routes
}
