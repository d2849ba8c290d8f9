package cloudserver

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

// An in-tree kubelet (ProviderName + "://" + InstanceID) and the cloud
// node controller (InstancesV2) reach the same ProviderID, in the form of
// the provider the cloud names things as; load balancers are named so too.
func TestProviderNamesThingsAsItsProfile(t *testing.T) {
	for _, tc := range []struct {
		profile, prefix, lb, group string
	}{
		{"", "kind://docker/c/", "c-a12345678", ""},
		{"azure", "azure:///subscriptions/" + behaviour.Subscription + "/resourceGroups/c/providers/Microsoft.Compute/virtualMachines/", "a12345678", "c"},
	} {
		t.Run("profile "+tc.profile, func(t *testing.T) {
			as, err := behaviour.Lookup(tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			r := newRig(t, t.TempDir())
			for i := range r.fakes.instances {
				r.fakes.instances[i].ProviderID = as.ProviderIDOf("c", r.fakes.instances[i].Name)
			}
			ctx := context.Background()
			kubelet := provider.NewWithClient(r.client("kubelet"), "c-worker", as)
			v1i, _ := kubelet.Instances()
			id, err := v1i.InstanceID(ctx, types.NodeName("c-worker"))
			if err != nil {
				t.Fatal(err)
			}
			fromKubelet := kubelet.ProviderName() + "://" + id
			if fromKubelet != tc.prefix+"c-worker" {
				t.Fatalf("in-tree kubelet's ProviderID %q, want %q", fromKubelet, tc.prefix+"c-worker")
			}
			ccm := provider.NewWithClient(r.client("cloud-controller-manager"), "c-control-plane", as)
			meta, err := ccm.InstanceMetadata(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "c-worker"}})
			if err != nil || meta.ProviderID != fromKubelet {
				t.Fatalf("cloud node controller's ProviderID %+v (%v), the kubelet's %q", meta, err, fromKubelet)
			}
			exists, err := ccm.InstanceExists(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Spec: v1.NodeSpec{ProviderID: fromKubelet}})
			if err != nil || !exists {
				t.Fatalf("lifecycle controller by ProviderID: exists %t, %v", exists, err)
			}
			svc := service()
			if name := ccm.GetLoadBalancerName(ctx, "c", svc); name != tc.lb {
				t.Fatalf("load balancer %q, want %q", name, tc.lb)
			}
			if _, err := ccm.EnsureLoadBalancer(ctx, "c", svc, []*v1.Node{readyNode("172.18.0.4")}); err != nil {
				t.Fatal(err)
			}
			if got := r.fakes.lbs[tc.lb].Spec.Group; got != tc.group {
				t.Fatalf("load balancer's group %q, want %q", got, tc.group)
			}
			if !strings.HasPrefix(fromKubelet, as.Scheme()+"://") {
				t.Fatalf("%q does not start with the provider's name %q", fromKubelet, as.Scheme())
			}
		})
	}
}
