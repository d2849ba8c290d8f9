package azure

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Options configure a Face.
type Options struct {
	// Cloud calls the simulated cloud; each ARM call is made with a copy
	// whose Component and Node are the caller's (its token's).
	Cloud   *api.Client
	Network Network
	// Identities are the user-assigned identities, by client ID, each
	// with the component it stands for: an IMDS token request naming one
	// (client_id, the providers' userAssignedIdentityID) is that
	// component's. A request naming none is the node's own identity's,
	// NodePrincipal's ("" is "kubelet": what asks ARM from every node
	// when nothing else is configured, the in-tree kubelet).
	Identities    map[string]string
	NodePrincipal string
	// Audiences ARM takes tokens for beside its public ones (an Azure
	// Stack environment's tokenAudience).
	Audiences []string
	// TokenKey signs the tokens the metadata service issues (nil: a
	// random one, which only this process can check).
	TokenKey []byte
	// Terminated, when set, says whether the instance of a node's name was
	// terminated: its tokens are refused from then on, as a deleted VM's
	// identity ends with it.
	Terminated func(node string) bool
	// Registry is the cluster's container registry's login server ("":
	// none), whose token exchange the face answers (acr.go).
	Registry string
	// StatePath keeps what only Azure has ("" in memory).
	StatePath string
	// PageSize bounds a list's page; more follow through nextLink (0 is
	// 100).
	PageSize int
	Now      func() time.Time
	// Record is told of every ARM and metadata call answered.
	Record func(Record)
}

// Face serves ARM and the instance metadata service over a simulated
// cloud.
type Face struct {
	opts    Options
	state   *state
	mu      sync.Mutex
	clients map[caller]*api.Client
	// routing serialises route table writes: each is a read, a check of
	// its etag and a diff applied to the cloud.
	routing sync.Mutex
	// balancing serialises the writes that change what the cloud's load
	// balancers carry: each is tried on a copy, pushed to the cloud, then
	// kept (changeCarried).
	balancing sync.Mutex
}

// New opens the face's state.
func New(o Options) (*Face, error) {
	n := o.Network
	if o.Cloud == nil || n.Cluster == "" || n.Location == "" || n.CIDR == "" {
		return nil, errors.New("azure: a face needs the cloud's client and the cluster's network (name, location, CIDR)")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NodePrincipal == "" {
		o.NodePrincipal = "kubelet"
	}
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.TokenKey == nil {
		var err error
		if o.TokenKey, err = NewTokenKey(); err != nil {
			return nil, err
		}
	}
	st, err := openState(o.StatePath)
	if err != nil {
		return nil, err
	}
	return &Face{opts: o, state: st, clients: map[caller]*api.Client{}}, nil
}

// Handler serves ARM: resources under /subscriptions/, and
// /metadata/endpoints.
func (f *Face) Handler() http.Handler { return http.HandlerFunc(f.serveARM) }

// cloud is the simulated cloud's client for a caller: as its token's
// component and node, so the cloud's audit and knobs see both.
func (f *Face) cloud(c caller) *api.Client {
	f.mu.Lock()
	defer f.mu.Unlock()
	cl, ok := f.clients[c]
	if !ok {
		copied := *f.opts.Cloud
		copied.Component, copied.Node = c.Principal, c.Node
		cl = &copied
		f.clients[c] = cl
	}
	return cl
}
