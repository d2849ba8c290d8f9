package cloudserver

import (
	"context"
	"math"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Virtual instances are instances to every cloud controller — found by
// name and ProviderID, terminated, kept across a restart — while load
// balancers carry traffic to container instances only.
func TestVirtualInstances(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	ctx := context.Background()
	admin := r.admin()
	v1, err := AddVirtualInstance(ctx, admin, "fake-1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := AddVirtualInstance(ctx, admin, "fake-1")
	if err != nil || again.Addresses[0] != v1.Addresses[0] {
		t.Fatalf("adding the same name twice: %+v, %v", again, err)
	}
	v2, _ := AddVirtualInstance(ctx, admin, "fake-2")
	_, subnet, _ := net.ParseCIDR(VirtualSubnet)
	if ip := net.ParseIP(v2.Addresses[0].Address); v2.Addresses[0].Type != "InternalIP" || !subnet.Contains(ip) || v2.Addresses[0] == v1.Addresses[0] {
		t.Fatalf("addresses %v and %v: want distinct InternalIPs in %s", v1.Addresses, v2.Addresses, VirtualSubnet)
	}

	md, err := r.cloud("cloud-controller-manager").InstanceMetadata(ctx, node("fake-2"))
	if err != nil || md.ProviderID != v2.ProviderID || md.InstanceType != VirtualType {
		t.Fatalf("the cloud-node controller's view of fake-2: %+v, %v", md, err)
	}
	byID, err := admin.InstanceByProviderID(ctx, "", v1.ProviderID)
	if err != nil || byID.Name != "fake-1" {
		t.Fatalf("by ProviderID: %+v, %v", byID, err)
	}

	lb, err := admin.EnsureLoadBalancer(ctx, "service-lb-controller", "lb", api.LoadBalancerSpec{
		Ports: []api.Port{{Port: 80, NodePort: 30080, Protocol: "TCP"}},
		Nodes: []string{"172.18.0.4", v1.Addresses[0].Address, v2.Addresses[0].Address}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lb.Spec.Nodes) != 3 {
		t.Errorf("the cloud keeps every backend the caller asked for, got %v", lb.Spec.Nodes)
	}
	if got := r.fakes.lbs["lb"].Spec.Nodes; !slices.Equal(got, []string{"172.18.0.4"}) {
		t.Errorf("data plane backends %v: want the container instance's only", got)
	}

	if err := admin.TerminateInstance(ctx, "fake-1"); err != nil {
		t.Fatal(err)
	}
	exists, err := r.cloud("kube-controller-manager").InstanceExists(ctx, node("fake-1"))
	if err != nil || exists {
		t.Fatalf("terminated virtual instance: exists=%v, %v", exists, err)
	}
	r.server.Close()
	restarted := newRig(t, dir)
	all, err := restarted.client("handover").Instances(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range all {
		names = append(names, in.Name)
	}
	if !slices.Contains(names, "fake-2") || slices.Contains(names, "fake-1") {
		t.Fatalf("after a restart: %v, want fake-2 kept and fake-1 still terminated", names)
	}
}

// A reader that follows the audit by position misses no call, though a
// slow one is recorded after quicker calls that began later; by time
// (since), it would have to look back.
func TestAuditAfterMissesNothing(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	c := r.admin()
	_, next, err := AuditAfter(ctx, c, math.MaxInt)
	if err != nil || next != 0 {
		t.Fatalf("past the end of an empty audit: next %d, %v", next, err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range []int{1, 2, 5} {
		r.server.audit.record(api.AuditEntry{Time: base.Add(time.Duration(s) * time.Second), Resource: strconv.Itoa(s)})
	}
	got, next, err := AuditAfter(ctx, c, next)
	if err != nil || len(got) != 3 || next != 3 {
		t.Fatalf("first read: %v next %d, %v", got, next, err)
	}
	r.server.audit.record(api.AuditEntry{Time: base.Add(3 * time.Second), Resource: "3, slow"})
	got, next, _ = AuditAfter(ctx, c, next)
	if len(got) != 1 || got[0].Resource != "3, slow" || next != 4 {
		t.Fatalf("the slow call: %v next %d", got, next)
	}
	var since []string
	for _, e := range r.server.audit.since(base.Add(3 * time.Second)) {
		since = append(since, e.Resource)
	}
	if !slices.Equal(since, []string{"5", "3, slow"}) {
		t.Fatalf("since 3s: %v", since)
	}
}

// Load balancers of a namespace handover named are addressed, kept and
// audited, with no proxy behind them; others still get one.
func TestVirtualLoadBalancers(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	admin := r.admin()
	if err := MakeLoadBalancersVirtual(ctx, admin, "handover-scale"); err != nil {
		t.Fatal(err)
	}
	spec := func(svc string) api.LoadBalancerSpec {
		return api.LoadBalancerSpec{Service: svc, Ports: []api.Port{{Port: 80, NodePort: 30080, Protocol: "TCP"}}, Nodes: []string{"172.18.0.4"}}
	}
	v, err := admin.EnsureLoadBalancer(ctx, "service-lb-controller", "v", spec("handover-scale/scale-000"))
	if err != nil {
		t.Fatal(err)
	}
	_, pool, _ := net.ParseCIDR(VirtualLBSubnet)
	if !pool.Contains(net.ParseIP(v.IP)) {
		t.Fatalf("virtual load balancer at %s, want an address in %s", v.IP, VirtualLBSubnet)
	}
	again, err := admin.UpdateLoadBalancer(ctx, "service-lb-controller", "v", spec("handover-scale/scale-000"))
	if err != nil || again.IP != v.IP {
		t.Fatalf("an update moved it: %+v, %v", again, err)
	}
	if _, err := admin.EnsureLoadBalancer(ctx, "service-lb-controller", "real", spec("handover-load/svc")); err != nil {
		t.Fatal(err)
	}
	if _, proxied := r.fakes.lbs["v"]; proxied || r.fakes.lbs["real"].Name != "real" {
		t.Fatalf("proxies %v: want the real one only", r.fakes.lbs)
	}
	if err := admin.DeleteLoadBalancer(ctx, "service-lb-controller", "v"); err != nil {
		t.Fatal(err)
	}
	if len(r.fakes.deleted) != 0 {
		t.Fatalf("deleted proxies %v for a virtual load balancer", r.fakes.deleted)
	}
}
