package migrate

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// ControlPlane is a control-plane node and the versions it runs.
type ControlPlane struct {
	Name    string
	Version string // of its kube-controller-manager
	HasCCM  bool   // a cloud-controller-manager static pod
	// Replacement: handover set it up as version N+1's side (joined as a
	// replacement or upgraded in place). Read only when both sides share a
	// version, where the version cannot tell them apart.
	Replacement bool
}

// replacementMark is the file handover leaves on a control plane it set up
// as version N+1's side.
const replacementMark = "/etc/handover/replacement"

// side picks the control planes of one side of a migration: those at its
// version and, when N and N+1 are the same version, those set up (or not)
// as replacements.
type side struct {
	version     string
	replacement bool
	sameVersion bool
}

func (s Spec) NSide() side { return side{version: s.From, sameVersion: s.From == s.To} }
func (s Spec) n1Side() side {
	return side{version: s.To, replacement: true, sameVersion: s.From == s.To}
}

func (d side) has(cp ControlPlane) bool {
	return cp.Version == d.version && (!d.sameVersion || cp.Replacement == d.replacement)
}

var suffix = regexp.MustCompile(`(\d*)$`)

// controlPlanes lists the control-plane nodes oldest first (kind numbers
// nodes in the order they were made and never reuses a number).
func (e *Env) controlPlanes(ctx context.Context) ([]ControlPlane, error) {
	nodes, err := e.Cluster.ControlPlanes()
	if err != nil {
		return nil, err
	}
	var out []ControlPlane
	for _, n := range nodes {
		pod, err := e.readStaticPod(ctx, n.String(), "kube-controller-manager")
		if err != nil {
			return nil, err
		}
		_, ccmErr := e.Cluster.ReadFile(ctx, n.String(), e.Spec.Provider().CCMStaticPodPath)
		cp := ControlPlane{Name: n.String(), Version: imageVersion(pod.Spec.Containers[0].Image), HasCCM: ccmErr == nil}
		if e.Spec.From == e.Spec.To {
			_, markErr := e.Cluster.ReadFile(ctx, cp.Name, replacementMark)
			cp.Replacement = markErr == nil
		}
		out = append(out, cp)
	}
	sort.Slice(out, func(i, j int) bool { return nodeNumber(out[i].Name) < nodeNumber(out[j].Name) })
	return out, nil
}

func nodeNumber(name string) int {
	n, err := strconv.Atoi(suffix.FindString(name))
	if err != nil {
		return 1
	}
	return n
}

func onSide(cps []ControlPlane, d side) []ControlPlane {
	var out []ControlPlane
	for _, cp := range cps {
		if d.has(cp) {
			out = append(out, cp)
		}
	}
	return out
}

// Running lists the controllers a manager on a node has started, from its
// /healthz?verbose (each started controller adds a named check). A manager
// that is not running lists none.
func (e *Env) Running(ctx context.Context, node, component string) (map[string]bool, error) {
	return e.Managers.Controllers(ctx, node, component, 3*time.Second)
}

// Ownership maps each controller to the manager instances running it, as
// "component@node".
type Ownership map[string][]string

// Owners asks every manager on every control plane what it runs.
func (e *Env) Owners(ctx context.Context) (Ownership, error) {
	nodes, err := e.Cluster.ControlPlanes()
	if err != nil {
		return nil, err
	}
	own := Ownership{}
	for _, n := range nodes {
		for _, comp := range managers.Names() {
			run, err := e.Running(ctx, n.String(), comp)
			if err != nil {
				return nil, err
			}
			for c := range run {
				own[c] = append(own[c], comp+"@"+n.String())
			}
		}
	}
	return own, nil
}

// settled reports whether each controller runs in exactly one manager
// instance, of component; otherwise it says what is wrong.
func (o Ownership) settled(component string, controllers []string) error {
	var bad []string
	for _, c := range controllers {
		in := o[c]
		if len(in) != 1 || !strings.HasPrefix(in[0], component+"@") {
			bad = append(bad, fmt.Sprintf("%s runs in [%s]", c, strings.Join(in, " ")))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("want each in one %s: %s", component, strings.Join(bad, "; "))
	}
	return nil
}

// WaitOwner is a postcondition: the controllers settled in component.
func WaitOwner(component string) func(context.Context, *Env) (bool, error) {
	return func(ctx context.Context, e *Env) (bool, error) {
		own, err := e.Owners(ctx)
		if err != nil {
			return false, err
		}
		return own.settled(component, e.Spec.Controllers()) == nil, own.settled(component, e.Spec.Controllers())
	}
}

// LeaseHolder is the holder identity of a lease in kube-system, "" if none.
func (e *Env) LeaseHolder(ctx context.Context, name string) (string, error) {
	l, err := e.Client.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

// missingProviderIDs lists nodes without a ProviderID or still tainted
// uninitialized.
func (e *Env) missingProviderIDs(ctx context.Context) ([]string, error) {
	list, err := e.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, n := range list.Items {
		tainted := false
		for _, t := range n.Spec.Taints {
			tainted = tainted || t.Key == "node.cloudprovider.kubernetes.io/uninitialized"
		}
		if n.Spec.ProviderID == "" || tainted {
			bad = append(bad, n.Name)
		}
	}
	return bad, nil
}

// client404 turns NotFound into "not there yet" (nil error).
func client404(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// mainLease is each manager's own leader-election lease.
var mainLease = map[string]string{lmconfig.KCM: "kube-controller-manager", lmconfig.CCM: "cloud-controller-manager"}

// leaseSettled checks the leases agree with the managers' health: a
// manager uses one identity for its main and its migration lease, so the
// migration lease is held by component when both leases have one holder
// and are current.
func (e *Env) leaseSettled(ctx context.Context, component string) error {
	get := func(name string) (string, error) {
		l, err := e.Client.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		if l.Spec.HolderIdentity == nil || l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
			return "", fmt.Errorf("lease %s has no holder", name)
		}
		if age := time.Since(l.Spec.RenewTime.Time); age > time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second+5*time.Second {
			return "", fmt.Errorf("lease %s was last renewed %s ago by %s", name, age.Round(time.Second), *l.Spec.HolderIdentity)
		}
		return *l.Spec.HolderIdentity, nil
	}
	main, err := get(mainLease[component])
	if err != nil {
		return err
	}
	if component == lmconfig.CCM && !e.Spec.CCMTakesMigrationLease() {
		// Its manager never takes the migration lease: its main lease
		// is all that says it leads.
		return nil
	}
	migration, err := get(e.Spec.LeaderName)
	if err != nil {
		return err
	}
	if migration != main {
		return fmt.Errorf("migration lease %s is held by %s, not by the %s leader %s", e.Spec.LeaderName, migration, component, main)
	}
	return nil
}

// leaderLast orders control planes so that the ones whose managers hold a
// lease come last, the migration lease's holder very last: restarting or
// removing a leader hands its controllers over once, not once per node, and
// a main lease moves before the migration lease does, so that its new
// holder is already a candidate watching the migration lease when that
// lease frees (a fresh candidate must first watch it a full lease
// duration; on rollback that doubled the coverage gap).
func (e *Env) leaderLast(ctx context.Context, cps []ControlPlane) []ControlPlane {
	rank := map[string]int{}
	for _, name := range []string{mainLease[lmconfig.KCM], mainLease[lmconfig.CCM], e.Spec.LeaderName} {
		h, err := e.LeaseHolder(ctx, name)
		if err != nil || h == "" {
			continue
		}
		node, r := holderNode(h), 1
		if name == e.Spec.LeaderName {
			r = 2
		}
		rank[node] = max(rank[node], r)
	}
	out := slices.Clone(cps)
	slices.SortStableFunc(out, func(a, b ControlPlane) int { return rank[a.Name] - rank[b.Name] })
	return out
}

// countAt is how many control planes are on a side; the replace and
// upgrade steps are done when it reaches their target.
func (e *Env) countAt(ctx context.Context, d side) (int, error) {
	cps, err := e.controlPlanes(ctx)
	return len(onSide(cps, d)), err
}

// atLeast and atMost are Done checks on countAt.
func atLeast(d side, n int) func(context.Context, *Env) (bool, error) {
	return func(ctx context.Context, e *Env) (bool, error) {
		c, err := e.countAt(ctx, d)
		return err == nil && c >= n, err
	}
}

func atMost(d side, n int) func(context.Context, *Env) (bool, error) {
	return func(ctx context.Context, e *Env) (bool, error) {
		c, err := e.countAt(ctx, d)
		return err == nil && c <= n, err
	}
}

// nextAt is the control plane on a side a step takes next: one whose
// managers hold no lease first.
func (e *Env) nextAt(ctx context.Context, d side, verb string) (string, error) {
	cps, err := e.controlPlanes(ctx)
	if err != nil {
		return "", err
	}
	at := e.leaderLast(ctx, onSide(cps, d))
	if len(at) == 0 {
		return "", fmt.Errorf("no version-%s control plane left to %s", d.version, verb)
	}
	return at[0].Name, nil
}
