package readonly

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	// Verbs are those granted and tried; nil: get, list and watch, tried
	// by listing and watching.
	Verbs []string
	Why   string
	// list reads as o asks (listing, or opening a watch); a need only got
	// gets.
	list func(ctx context.Context, c kubernetes.Interface, ns string, o metav1.ListOptions) error
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
	{Resource: "pods/log", Namespace: "kube-system", Verbs: []string{"get"}, Why: "the errors the managers log (a controller's failure that posts no Event, in the provider's own words), which the checks cite",
		list: func(ctx context.Context, c kubernetes.Interface, ns string, _ metav1.ListOptions) error {
			return getLog(ctx, c, ns)
		}},
}

// preflightPod names no pod: getting its log is refused (403) without
// the permission, and not found (404) with it.
const preflightPod = "handover-preflight"

// getLog asks for a log no pod has, to learn whether logs may be read.
func getLog(ctx context.Context, c kubernetes.Interface, ns string) error {
	err := c.CoreV1().Pods(ns).GetLogs(preflightPod, &corev1.PodLogOptions{}).Do(ctx).Error()
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// tried are the verbs Preflight tries of n, with what it asks.
func (n Need) tried() []string {
	if n.Verbs == nil {
		return []string{"list", "watch"}
	}
	return n.Verbs
}

// granted are the verbs a role grants of n.
func (n Need) granted() []string {
	if n.Verbs == nil {
		return []string{"get", "list", "watch"}
	}
	return n.Verbs
}

// asks is what Preflight asks of a need for each verb.
var asks = map[string]metav1.ListOptions{"get": {}, "list": one, "watch": watchOnce}

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
		for _, verb := range n.tried() {
			err := n.list(ctx, c, n.Namespace, asks[verb])
			switch {
			case err == nil:
			case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
				denied = append(denied, verb+" "+n.String())
			default:
				return fmt.Errorf("%s %s: %w", verb, n, err)
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
