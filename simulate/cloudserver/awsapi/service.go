package awsapi

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Protocol is how a service's requests and answers are framed.
type Protocol int

const (
	// EC2Query is EC2's: parameters named by capitalised locationName,
	// answers as <ActionResponse> with the fields directly inside.
	EC2Query Protocol = iota
	// Query is the query protocol of Elastic Load Balancing (and IAM, STS,
	// ...): answers as <ActionResponse><ActionResult>.
	Query
	// JSON11 is the JSON protocol of ECR (and DynamoDB, KMS, ...): the
	// action in the X-Amz-Target header after the service's TargetPrefix,
	// input and answer as JSON bodies (aws-sdk-go's jsonutil: timestamps
	// in epoch seconds, blobs in base64).
	JSON11
)

// Service is one AWS API the cloud serves at /<Name>/.
type Service struct {
	// Name is the service's signing name, which the credential scope of
	// every request must name ("ec2", "elasticloadbalancing").
	Name      string
	Protocol  Protocol
	Namespace string // the answers' xmlns (query protocols)
	// TargetPrefix names the service in X-Amz-Target (JSON11).
	TargetPrefix string
	// Refusals are the codes this service answers the cloud's knobs with.
	Refusals Refusals
	// TLSOnly: the service answers only over TLS (its answers are
	// credentials, as ECR's tokens are).
	TLSOnly bool
	Actions []Action
}

// Refusals are the error codes a service answers when it throttles, denies
// or is unavailable.
type Refusals struct {
	Throttled, Denied, Unavailable Error
}

// Call is one request as an action sees it.
type Call struct {
	Service, Action string
	Key             Key // the access key that signed it
	RemoteAddr      string
}

// Action is one action of a service: In makes a new SDK input value, Do
// answers it with an SDK output value.
type Action struct {
	Name string
	In   func() any
	Do   func(context.Context, Call, any) (any, error)
	// Reaches: Do asks the cloud before it answers or changes anything,
	// and the cloud's knobs decide that call; the server's Gate leaves the
	// action to them rather than deciding its faults twice.
	Reaches bool
}

// Reaching marks an action whose every answer starts with a call to the
// cloud (Reaches).
func (a Action) Reaching() Action {
	a.Reaches = true
	return a
}

// Op makes an Action from a typed handler of an SDK input and output type.
func Op[I, O any](name string, do func(context.Context, Call, *I) (*O, error)) Action {
	return Action{
		Name: name,
		In:   func() any { return new(I) },
		Do: func(ctx context.Context, c Call, in any) (any, error) {
			out, err := do(ctx, c, in.(*I))
			if err != nil {
				return nil, err
			}
			return out, nil
		},
	}
}

func (s Service) action(name string) (Action, bool) {
	for _, a := range s.Actions {
		if a.Name == name {
			return a, true
		}
	}
	return Action{}, false
}

// ActionNames lists the actions a service implements, sorted.
func (s Service) ActionNames() []string {
	names := make([]string, len(s.Actions))
	for i, a := range s.Actions {
		names[i] = a.Name
	}
	sort.Strings(names)
	return names
}

// check refuses a service whose actions cannot be served: a name twice, or
// an input that is not an SDK input struct.
func (s Service) check() error {
	seen := map[string]bool{}
	for _, a := range s.Actions {
		if seen[a.Name] {
			return fmt.Errorf("service %s: action %s twice", s.Name, a.Name)
		}
		seen[a.Name] = true
		if t := reflect.TypeOf(a.In()); t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct ||
			!strings.HasSuffix(t.Elem().Name(), "Input") {
			return fmt.Errorf("service %s: action %s takes %s, not an SDK input struct", s.Name, a.Name, t)
		}
	}
	return nil
}
