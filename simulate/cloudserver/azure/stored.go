package azure

import (
	"context"
	"net/http"
	"slices"
	"strings"
)

// stored is a type whose resources ARM keeps here: in the state as their
// last PUT left them, shown with what ARM derives from other resources.
// Their calls pass the cloud's knobs through a listing of the cloud's load
// balancers made as the caller (gate); the writes of a carried type also
// change the cloud's load balancers behind the public IPs (carriers.go).
type stored struct {
	typ  string
	pick func(*stateData) map[string]resource
	// preset is a resource that exists before any PUT (nil: none).
	preset func(name string) resource
	// derive adds what ARM derives to a copy of a stored resource.
	derive func(d *stateData, res resource)
	// check refuses a resource about to be stored, and makes the rest of
	// the state agree with it.
	check func(d *stateData, res resource) error
	// prepare sets what ARM sets on a resource before it is stored; old is
	// the stored one (nil when new).
	prepare func(d *stateData, res, old resource) error
	// inUse refuses deleting a resource others refer to.
	inUse func(d *stateData, res resource) error
	// deleted makes the rest of the state forget a deleted resource.
	deleted func(d *stateData, res resource)
	// carried: a write can change what the public IPs' carriers carry
	// (carriers.go), and is kept only once the cloud has taken it.
	carried bool
}

// write applies change to the state (through the carriers when s is
// carried) and calls done with the state it made.
func (f *Face) write(ctx context.Context, c *call, s stored, change func(*stateData) error, done func(*stateData)) error {
	if s.carried {
		return f.changeCarried(ctx, c, change, done)
	}
	return f.state.Change(func(d *stateData) error {
		if err := change(d); err != nil {
			return err
		}
		if done != nil {
			done(d)
		}
		return nil
	})
}

// gate passes a call the face answers from its own state through the
// cloud's knobs, as its caller and by its operation ("arm:" and ARM's
// name, as the deny knob takes it).
func (f *Face) gate(ctx context.Context, c *call) error {
	if err := f.cloud(c.caller).FaceCall(ctx, c.action, "arm:"+c.action); err != nil {
		return refusal(err, c.caller, c.action, nil)
	}
	return nil
}

// current is the named resource (stored, or preset), derived; nil when
// there is none.
func (s stored) current(d *stateData, name string) resource {
	res, ok := s.pick(d)[key(name)]
	if !ok && s.preset != nil {
		res = s.preset(name)
	}
	if res == nil {
		return nil
	}
	res = clone(res)
	if s.derive != nil {
		s.derive(d, res)
	}
	return res
}

func (f *Face) getStored(ctx context.Context, c *call, s stored) (any, error) {
	if err := f.gate(ctx, c); err != nil {
		return nil, err
	}
	var res resource
	f.state.Read(func(d *stateData) { res = s.current(d, c.name) })
	if res == nil {
		return nil, f.opts.Network.errNotFound(s.typ, c.name)
	}
	return res, nil
}

func (f *Face) listStored(ctx context.Context, c *call, s stored) (any, error) {
	if err := f.gate(ctx, c); err != nil {
		return nil, err
	}
	var out []any
	f.state.Read(func(d *stateData) {
		m := s.pick(d)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, s.current(d, k))
		}
	})
	return f.page(c, out)
}

// putStored creates (201) or replaces (200) a resource, refusing a stale
// If-Match. ARM answers with the resource and no Azure-AsyncOperation
// header: the providers' clients take a 200 or 201 whose provisioningState
// is Succeeded as the end of the operation, and read the resource back
// (go-autorest@v0.11.29 autorest/azure/async.go).
func (f *Face) putStored(ctx context.Context, c *call, s stored) (int, any, error) {
	want, err := body(c.r)
	if err != nil {
		return 0, nil, err
	}
	if err := f.gate(ctx, c); err != nil {
		return 0, nil, err
	}
	status := http.StatusOK
	var out resource
	put := func(d *stateData) error {
		want := clone(want) // a carried write is applied twice
		old, stored := s.pick(d)[key(c.name)]
		now := s.current(d, c.name)
		etag, _ := now["etag"].(string)
		if e := ifMatch(c.r, etag, now != nil); e != nil {
			return e
		}
		if now == nil {
			if e := requireLocation(want); e != nil {
				return e
			}
			status = http.StatusCreated
		}
		if !stored {
			old = nil
		}
		id := f.opts.Network.id(s.typ, c.name)
		want["id"], want["name"], want["type"] = id, c.name, s.typ
		if s.prepare != nil {
			if err := s.prepare(d, want, old); err != nil {
				return err
			}
		}
		res := settle(want, id, c.name, s.typ)
		if s.check != nil {
			if err := s.check(d, res); err != nil {
				return err
			}
		}
		s.pick(d)[key(c.name)] = res
		return nil
	}
	err = f.write(ctx, c, s, put, func(d *stateData) { out = s.current(d, c.name) })
	if err != nil {
		return 0, nil, err
	}
	return status, out, nil
}

// deleteStored deletes a resource: 200, or 204 when there is none, as the
// network provider answers (azure-rest-api-specs specification/network,
// every *_Delete: "204: Request successful. Resource does not exist.").
func (f *Face) deleteStored(ctx context.Context, c *call, s stored) (int, error) {
	if err := f.gate(ctx, c); err != nil {
		return 0, err
	}
	status := http.StatusOK
	del := func(d *stateData) error {
		res, ok := s.pick(d)[key(c.name)]
		if !ok {
			status = http.StatusNoContent
			return nil
		}
		if s.inUse != nil {
			if err := s.inUse(d, res); err != nil {
				return err
			}
		}
		delete(s.pick(d), key(c.name))
		if s.deleted != nil {
			s.deleted(d, res)
		}
		return nil
	}
	return status, f.write(ctx, c, s, del, nil)
}

// sameID compares ARM IDs, which are case-insensitive.
func sameID(a, b string) bool { return strings.EqualFold(a, b) }
