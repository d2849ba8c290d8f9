package azure

import (
	"context"
	"net/http"
	"slices"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// A public IP address is one of the cloud's load balancers, its carrier:
// made (as the caller) when the address is first PUT, whose address the
// public IP's ipAddress is from then on, named by the public IP's name in
// lower case. While no load-balancing rule uses it, it has no ports: an
// address the cloud holds and forwards nothing on. The rules of the
// frontend on it give it its ports, the backend pools of those rules its
// nodes (carriage.go). Every write that can change what a carrier carries
// (a load balancer's PUT or DELETE, a public IP's, an interface's PUT) is
// tried on a copy of the state, pushed to the carriers the copy asks for,
// and kept only once the cloud has taken them.

// carrier is the cloud's load balancer behind a public IP, as the face
// last made it.
type carrier struct {
	Name string               `json:"name"`
	IP   string               `json:"ip"`
	Spec api.LoadBalancerSpec `json:"spec"`
}

// changeCarried applies change to a copy of the state, makes the cloud's
// load balancers carry the copy (as the caller, so the cloud's audit and
// knobs see it), then applies it to the state and calls done with the
// state it made. A refusal of the cloud is the call's ARM error, and the
// state is left as it was; what was already pushed is put back as far as
// the cloud lets it. Such writes are serialised (f.balancing), so the
// change meets the same state twice.
func (f *Face) changeCarried(ctx context.Context, c *call, change func(*stateData) error, done func(*stateData)) error {
	f.balancing.Lock()
	defer f.balancing.Unlock()
	var next stateData
	f.state.Read(func(d *stateData) { next = clone(*d) })
	if err := change(&next); err != nil {
		return err
	}
	pushed, err := f.carry(ctx, c, &next)
	if err != nil {
		return err
	}
	err = f.state.Change(func(d *stateData) error {
		if err := change(d); err != nil {
			return err
		}
		pushed.record(d)
		return nil
	})
	if err != nil {
		f.undo(ctx, c, pushed)
		return err
	}
	if done != nil {
		done(&next)
	}
	return nil
}

// push is one change of a carrier: made (before nil), changed, or
// deleted (after nil).
type push struct {
	key           string
	before, after *carrier
}

type pushes []push

// record keeps the carriers as pushed; a public IP takes its new
// carrier's address.
func (ps pushes) record(d *stateData) {
	for _, p := range ps {
		if p.after == nil {
			delete(d.Carriers, p.key)
			continue
		}
		d.Carriers[p.key] = *p.after
		if pip := d.PublicIPs[p.key]; pip != nil && p.before == nil {
			props(pip)["ipAddress"] = p.after.IP
			delete(pip, "etag")
			pip["etag"] = etagOf(pip)
		}
	}
}

// carry pushes to the cloud every carrier d asks for that differs from
// the one made, and records them in d.
func (f *Face) carry(ctx context.Context, c *call, d *stateData) (pushes, error) {
	want, err := f.carriage(ctx, c, d)
	if err != nil {
		return nil, err
	}
	keys := sortedKeys(want)
	for k := range d.Carriers {
		if _, ok := want[k]; !ok {
			keys = append(keys, k) // deletions last: they cannot be put back
		}
	}
	var done pushes
	for _, k := range keys {
		p, err := f.pushOne(ctx, c, k, d.Carriers, want)
		if err != nil {
			f.undo(ctx, c, done)
			return nil, err
		}
		if p != nil {
			done = append(done, *p)
		}
	}
	done.record(d)
	return done, nil
}

// pushOne makes, changes or deletes the carrier of one public IP; nil
// when it is as wanted.
func (f *Face) pushOne(ctx context.Context, c *call, key string, made map[string]carrier, want map[string]api.LoadBalancerSpec) (*push, error) {
	cloud := f.cloud(c.caller)
	before, exists := made[key]
	spec, wanted := want[key]
	switch {
	case wanted && !exists:
		lb, err := cloud.EnsureLoadBalancer(ctx, c.action, key, spec)
		if err != nil {
			return nil, refusal(err, c.caller, c.action, nil)
		}
		if lb.IP == "" {
			return nil, errorf(http.StatusInternalServerError, "InternalServerError", "The cloud gave public IP address %s no address.", key)
		}
		return &push{key: key, after: &carrier{Name: key, IP: lb.IP, Spec: spec}}, nil
	case wanted && !sameSpec(before.Spec, spec):
		if _, err := cloud.UpdateLoadBalancer(ctx, c.action, before.Name, spec); err != nil {
			return nil, refusal(err, c.caller, c.action, errLostCarrier(key))
		}
		after := before
		after.Spec = spec
		return &push{key: key, before: &before, after: &after}, nil
	case !wanted && exists:
		if err := cloud.DeleteLoadBalancer(ctx, c.action, before.Name); err != nil {
			return nil, refusal(err, c.caller, c.action, nil)
		}
		return &push{key: key, before: &before}, nil
	}
	return nil, nil
}

// undo puts back what was pushed, newest first, as far as the cloud lets
// it: a carrier made is deleted, one changed is changed back. A deleted
// one cannot come back with its address; carry deletes last.
func (f *Face) undo(ctx context.Context, c *call, done pushes) {
	cloud := f.cloud(c.caller)
	for _, p := range slices.Backward(done) {
		switch {
		case p.before == nil && p.after != nil:
			_ = cloud.DeleteLoadBalancer(ctx, c.action, p.after.Name)
		case p.before != nil && p.after != nil:
			_, _ = cloud.UpdateLoadBalancer(ctx, c.action, p.before.Name, p.before.Spec)
		}
	}
}

// sameSpec compares specs, an empty list equal to none.
func sameSpec(a, b api.LoadBalancerSpec) bool {
	return a.Service == b.Service && a.Group == b.Group && slices.Equal(a.Ports, b.Ports) && slices.Equal(a.Nodes, b.Nodes)
}

// errLostCarrier answers a write to a public IP whose load balancer the
// cloud no longer has (its state was lost): ARM's 500, as Azure answers a
// resource it cannot bring to its wanted state.
func errLostCarrier(key string) *armError {
	return errorf(http.StatusInternalServerError, "InternalServerError",
		"The cloud has no load balancer for public IP address %s any more: delete the address and make it again.", key)
}
