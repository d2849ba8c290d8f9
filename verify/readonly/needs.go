package readonly

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Need is one thing an observer reads, and why.
type Need struct {
	Group, Resource string
	// Namespace limits the check to one namespace ("" for all).
	Namespace string
	Why       string
	list      func(ctx context.Context, c kubernetes.Interface, ns string, o metav1.ListOptions) error
}

// one lists at most one object: enough to learn whether listing is
// allowed; watchOnce opens a watch the server ends within a second.
var (
	one       = metav1.ListOptions{Limit: 1}
	second    = int64(1)
	watchOnce = metav1.ListOptions{Watch: true, TimeoutSeconds: &second}
)

// Needs are the resources the observers list and watch.
var Needs = []Need{
	{Group: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Why: "who holds the managers' leases and the migration lease",
		list: func(ctx context.Context, c kubernetes.Interface, ns string, o metav1.ListOptions) error {
			return read(ctx, c.CoordinationV1().Leases(ns), o)
		}},
	{Resource: "nodes", Why: "ProviderIDs, taints, pod CIDRs and deletions, and who wrote them (managedFields)",
		list: func(ctx context.Context, c kubernetes.Interface, _ string, o metav1.ListOptions) error {
			return read(ctx, c.CoreV1().Nodes(), o)
		}},
	{Resource: "services", Why: "LoadBalancer Services' addresses, and who wrote their status (managedFields)",
		list: func(ctx context.Context, c kubernetes.Interface, ns string, o metav1.ListOptions) error {
			return read(ctx, c.CoreV1().Services(ns), o)
		}},
	{Resource: "events", Why: "which controller of which manager acted (reporting controller, managedFields)",
		list: func(ctx context.Context, c kubernetes.Interface, ns string, o metav1.ListOptions) error {
			return read(ctx, c.CoreV1().Events(ns), o)
		}},
	{Resource: "pods", Namespace: "kube-system", Why: "find the controller managers (static pods by their component label, a chart's by its command), their nodes and their --secure-port and --bind-address; a manager with no pod ran nothing",
		list: func(ctx context.Context, c kubernetes.Interface, ns string, o metav1.ListOptions) error {
			return read(ctx, c.CoreV1().Pods(ns), o)
		}},
}

// reader is what every typed client of a resource can do to read it.
type reader[L any] interface {
	List(ctx context.Context, o metav1.ListOptions) (L, error)
	Watch(ctx context.Context, o metav1.ListOptions) (watch.Interface, error)
}

// read lists, or opens and at once closes a watch when o asks for one.
func read[L any](ctx context.Context, r reader[L], o metav1.ListOptions) error {
	if o.Watch {
		return stop(r.Watch(ctx, o))
	}
	_, err := r.List(ctx, o)
	return err
}

// NonResourceURLs are read of the API servers (probes) and, through their
// delegated authorization, of the managers.
var NonResourceURLs = []string{"/healthz", "/livez", "/metrics", "/readyz", "/version"}

// Preflight asks the cluster for its version and lists one object of each
// need, all within timeout: an unreachable cluster or a missing
// permission is an error naming it, before anything is observed.
func Preflight(ctx context.Context, c kubernetes.Interface, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := c.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("cannot reach the cluster: %w", err)
	}
	var denied []string
	for _, n := range Needs {
		for _, v := range []struct {
			verb string
			o    metav1.ListOptions
		}{{"list", one}, {"watch", watchOnce}} {
			err := n.list(ctx, c, n.Namespace, v.o)
			switch {
			case err == nil:
			case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
				denied = append(denied, v.verb+" "+n.String())
			default:
				return fmt.Errorf("%s %s: %w", v.verb, n, err)
			}
		}
	}
	if len(denied) > 0 {
		sort.Strings(denied)
		return &ErrDenied{Missing: denied}
	}
	return nil
}

// stop closes a watch opened only to learn that it may be.
func stop(w watch.Interface, err error) error {
	if err == nil {
		w.Stop()
	}
	return err
}

// ErrDenied names the reads the cluster refused.
type ErrDenied struct{ Missing []string }

func (e *ErrDenied) Error() string {
	return "the cluster refused this identity: " + strings.Join(e.Missing, "; ") +
		" (handover observe --print-rbac prints the roles it needs)"
}

// IsDenied says whether err is a refused permission.
func IsDenied(err error) bool {
	var d *ErrDenied
	return errors.As(err, &d)
}

func (n Need) String() string {
	r := n.Resource
	if n.Group != "" {
		r += "." + n.Group
	}
	if n.Namespace != "" {
		r += " in " + n.Namespace
	}
	return r
}
