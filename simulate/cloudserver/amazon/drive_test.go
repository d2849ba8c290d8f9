package amazon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// TestTheProvidersRunAgainstTheFace drives each aws provider, unchanged —
// the in-tree one of Kubernetes 1.26 as kube-controller-manager
// (drive/intree) and cloud-provider-aws v1.27's as cloud-controller-manager
// (drive/ccm) — through a kubelet's and a manager's calls against the
// face: every step succeeds, no call reaches an action the face does not
// serve, and what carries traffic reaches the cloud as that manager.
func TestTheProvidersRunAgainstTheFace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the providers' modules (minutes on a cold cache)")
	}
	for _, d := range []struct {
		dir string
		key awsapi.Key
	}{{"intree", kcm}, {"ccm", ccm}} {
		t.Run(d.dir, func(t *testing.T) { drive(t, d.dir, d.key) })
	}
}

func drive(t *testing.T, dir string, key awsapi.Key) {
	r := newRig(t, t.TempDir())
	imds := httptest.NewServer(r.face.IMDS(false))
	t.Cleanup(imds.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = filepath.Join("drive", dir)
	cfg := amazon.ProviderConfig{Region: region, AWS: r.awsAt, IMDS: imds.URL}
	cmd.Env = append(append(os.Environ(), cfg.Env(key)...),
		"HANDOVER_AWS_CONFIG="+cfg.INI(), "HANDOVER_AWS_NODES="+r.nodes("c-worker", "c-control-plane", "c-local"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the %s provider: %v\n%s\n%s", dir, err, out, tail(stderr.String(), 4000))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	steps := 0
	for sc.Scan() {
		var s struct{ Step, Result, Error string }
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		steps++
		if s.Error != "" {
			t.Errorf("%s: %s", s.Step, s.Error)
		} else {
			t.Logf("%s: %s", s.Step, s.Result)
		}
		// The ProviderID the cloud's names imitate is the provider's own
		// form ("aws://" + its InstanceID).
		firstInternalIP(t, dir, s.Step, s.Result)
		if want := r.providerID("c-worker"); strings.HasPrefix(s.Step, "kube-controller-manager: InstanceID") && "aws://"+s.Result != want {
			t.Errorf("the provider forms the worker's ProviderID aws://%s; amazon.ProviderID says %s", s.Result, want)
		}
	}
	if steps < 10 {
		t.Errorf("only %d steps ran:\n%s\n%s", steps, out, tail(stderr.String(), 4000))
	}
	called := map[string]int{}
	for _, rec := range r.calls() {
		called[rec.Service+":"+rec.Action]++
		if rec.Unimplemented || rec.Status >= 500 {
			t.Errorf("%s:%s answered %d %s", rec.Service, rec.Action, rec.Status, rec.Code)
		}
	}
	t.Logf("AWS actions called: %v", called)
	// What carries traffic reached the cloud itself, as the manager.
	audit, err := r.admin().Audit(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	for _, e := range audit {
		if e.Component == key.Principal && e.Status < 300 {
			reached[e.Operation] = true
		}
	}
	for _, op := range []string{"CreateRoute", "DeleteRoute", "EnsureLoadBalancer", "UpdateLoadBalancer", "DeleteLoadBalancer"} {
		if !reached[op] {
			t.Errorf("the cloud's audit has no %s by %s: %v", op, key.Principal, reached)
		}
	}
	opened(t, r)
}

// opened: the provider's own calls open the nodes' security group to the
// load balancer they made before they register its instances, so its
// traffic to them is carried; revoking that rule before the load balancer
// is deleted drops it.
func opened(t *testing.T, r *rig) {
	t.Helper()
	r.back.mu.Lock()
	defer r.back.mu.Unlock()
	if len(r.back.configured) == 0 {
		t.Error("no load balancer was handed its configuration")
	}
	for name, history := range r.back.configured {
		carried := slices.IndexFunc(history, func(s api.LoadBalancerSpec) bool { return len(s.Nodes) > 0 && len(s.Dropped) == 0 })
		if carried < 0 || !slices.ContainsFunc(history[carried:], func(s api.LoadBalancerSpec) bool { return len(s.Dropped) > 0 }) {
			t.Errorf("load balancer %s, each time it was configured: %+v; want its instances' traffic carried, then dropped once the rule is revoked", name, history)
		}
	}
}

// firstIPs are the first InternalIP each provider's own code gives the
// local instance, whose second interface EC2 lists first: the in-tree
// kubelet orders the metadata service's interfaces by device-number
// (legacy-cloud-providers aws/aws.go NodeAddresses), while EC2's answer
// is taken in its own order by the in-tree extractNodeAddresses and
// cloud-provider-aws v1.27's extractIPv4NodeAddresses (sorted by device
// index by v1.29.6, kubernetes/cloud-provider-aws#911). So an in-tree kubelet and
// cloud-provider-aws v1.27's node controller give such a Node different
// node IPs.
var firstIPs = map[string]map[string]string{
	"intree": {"kubelet: NodeAddresses": "127.0.0.1", "cloud-node: NodeAddressesByProviderID of this instance": localSecondIP},
	"ccm":    {"cloud-node: NodeAddressesByProviderID of this instance": localSecondIP},
}

func firstInternalIP(t *testing.T, dir, step, result string) {
	want, ok := firstIPs[dir][step]
	if !ok {
		return
	}
	if _, rest, found := strings.Cut(result, "{InternalIP "); !found || !strings.HasPrefix(rest, want+"}") {
		t.Errorf("%s %s: the first InternalIP is not %s: %s", dir, step, want, result)
	}
}

// providerID is amazon.ProviderID of the rig's instance of that name.
func (r *rig) providerID(name string) string {
	for _, in := range r.back.instances {
		if in.Name == name {
			return amazon.ProviderID(cluster, in)
		}
	}
	return ""
}

// nodes are the rig's instances as their Nodes: NAME=PROVIDERID,...
func (r *rig) nodes(names ...string) string {
	var out []string
	for _, n := range names {
		for _, in := range r.back.instances {
			if in.Name == n {
				out = append(out, amazon.PrivateDNSName(in.Addresses[0].Address, region)+"="+r.providerID(n))
			}
		}
	}
	return strings.Join(out, ",")
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
