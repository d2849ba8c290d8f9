package amazon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon/iampolicy"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// Options configure a Face.
type Options struct {
	// Cloud calls the simulated cloud; each AWS call is made with a copy
	// whose Component is the caller's (the signing key's principal).
	Cloud   *api.Client
	Network Network
	Keys    awsapi.KeyStore
	// Terminated, when set, says whether the instance of a node's name was
	// terminated: that node's keys are refused from then on, as a
	// terminated instance's credentials end with it.
	Terminated func(node string) bool
	// StatePath keeps what only AWS has ("" in memory).
	StatePath string
	Now       func() time.Time
	// Record is told of every AWS call answered.
	Record func(awsapi.Record)
	// DropTraffic applies the security groups to the cloud's load
	// balancers when their rules change (the cloud's own
	// cloudserver.Server.DropTraffic, in process: AWS applies a rule, no
	// caller does); nil applies them only when a load balancer changes.
	DropTraffic func(ctx context.Context, drop func(name string, spec api.LoadBalancerSpec) []string) error
	// Policies are the IAM policies of the callers that have one, by
	// principal (the key's component): a call its policy does not allow
	// is refused as AWS refuses it (iam.go). A caller without one may
	// make every call, as under an administrator's policy.
	Policies map[string]iampolicy.Policy
	// Logf is told what the face cannot answer a caller for (nil:
	// nothing is told).
	Logf func(format string, args ...any)
	// TokenKey signs the registry passwords ECR's tokens carry (nil: a
	// random one, which only this process can check).
	TokenKey []byte
}

// Face serves the AWS APIs over a simulated cloud.
type Face struct {
	opts    Options
	state   *state
	server  *awsapi.Server
	mu      sync.Mutex
	clients map[string]*api.Client
}

// New opens the face's state and assembles its services.
func New(o Options) (*Face, error) {
	if o.Cloud == nil || o.Network.Cluster == "" || o.Network.Region == "" {
		return nil, errors.New("amazon: a face needs the cloud's client and the cluster's network")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.TokenKey == nil {
		var err error
		if o.TokenKey, err = ecrtoken.NewKey(); err != nil {
			return nil, err
		}
	}
	st, err := openState(o.StatePath)
	if err != nil {
		return nil, err
	}
	f := &Face{opts: o, state: st, clients: map[string]*api.Client{}}
	keys := o.Keys
	if o.Terminated != nil && keys != nil {
		keys = liveKeys{keys, o.Terminated}
	}
	f.server, err = awsapi.NewServer(awsapi.Options{Region: o.Network.Region, Keys: keys, Now: o.Now, Record: o.Record, Gate: f.gate, Authorize: f.authorize}, f.ec2(), f.elb(), f.ecrService())
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Actions are the actions served, by service.
func (f *Face) Actions() map[string][]string {
	return map[string][]string{"ec2": f.ec2().ActionNames(), "elasticloadbalancing": f.elb().ActionNames(), "ecr": f.ecrService().ActionNames()}
}

// Handler serves the AWS APIs at /<service>/.
func (f *Face) Handler() http.Handler { return f.server }

// liveKeys are the keys of store but those of a terminated instance's
// node: such a key is unknown, as AWS answers a credential that ended.
type liveKeys struct {
	store      awsapi.KeyStore
	terminated func(node string) bool
}

func (l liveKeys) Key(id string) (awsapi.Key, bool) {
	k, ok := l.store.Key(id)
	if ok && k.Node != "" && l.terminated(k.Node) {
		return awsapi.Key{}, false
	}
	return k, ok
}

// cloud is the simulated cloud's client for a caller: as its key's
// component, and its node for a node's key, so the cloud's audit and
// knobs see both.
func (f *Face) cloud(c awsapi.Call) *api.Client {
	f.mu.Lock()
	defer f.mu.Unlock()
	who := c.Key.Principal + "\x00" + c.Key.Node
	cl, ok := f.clients[who]
	if !ok {
		copied := *f.opts.Cloud
		copied.Component, copied.Node = c.Key.Principal, c.Key.Node
		cl = &copied
		f.clients[who] = cl
	}
	return cl
}

// gate asks the cloud to decide the knobs of a call the face answers
// from its own state (awsapi.Action.Reaches says which it does not), as
// the caller and by the action's AWS name: a denied ec2:DescribeSubnets,
// a throttled caller or an outage refuse it as the service refuses.
func (f *Face) gate(ctx context.Context, c awsapi.Call, r awsapi.Refusals) *awsapi.Error {
	err := f.cloud(c).FaceCall(ctx, controller(c), controller(c))
	if err == nil {
		return nil
	}
	var e *awsapi.Error
	if errors.As(refusal(err, r, nil), &e) {
		return e
	}
	return &awsapi.Error{Status: http.StatusInternalServerError, Code: "InternalError", Message: "We encountered an internal error. Please try again."}
}

// controller is what the cloud's audit names as the caller's controller:
// the AWS action (the SDK does not say which controller called).
func controller(c awsapi.Call) string { return c.Service + ":" + c.Action }

// refusal turns the simulated cloud's refusal into the service's AWS
// error: its knobs' denial, throttling and outages into the service's
// codes, a 404 into notFound (the action's own "does not exist").
func refusal(err error, r awsapi.Refusals, notFound *awsapi.Error) error {
	var se *api.StatusError
	if !errors.As(err, &se) {
		return err
	}
	pick := func(e awsapi.Error, fault string) error {
		e.Fault = fault
		e.Message = fmt.Sprintf("%s (%s)", e.Message, se.Message)
		return &e
	}
	switch se.Code {
	case http.StatusForbidden:
		return pick(r.Denied, "deny")
	case http.StatusTooManyRequests:
		return pick(r.Throttled, "throttle")
	case http.StatusServiceUnavailable:
		return pick(r.Unavailable, "outage")
	case http.StatusNotFound:
		if notFound != nil {
			return notFound
		}
	case http.StatusBadRequest:
		return awsapi.Errorf("InvalidParameterValue", "%s", se.Message)
	}
	return &awsapi.Error{Status: http.StatusInternalServerError, Code: "InternalError", Message: se.Message}
}
