package cloudserver

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

func TestPodCIDRAllocation(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	c := r.client("cloud-controller-manager")
	ctx := context.Background()
	req := api.PodCIDRRequest{ClusterCIDR: "10.244.0.0/16", MaskSize: 24}

	// c-worker adopts the range kube-controller-manager gave it; c-worker2
	// gets the lowest free one, not the adopted one.
	adopt := req
	adopt.Adopt = "10.244.0.0/24"
	if got, err := c.AllocatePodCIDR(ctx, "node-ipam-controller", "c-worker", adopt); err != nil || got != "10.244.0.0/24" {
		t.Fatalf("adopt: %q %v", got, err)
	}
	if got, err := c.AllocatePodCIDR(ctx, "node-ipam-controller", "c-worker2", req); err != nil || got != "10.244.1.0/24" {
		t.Fatalf("allocate: %q %v", got, err)
	}
	// Asking again returns the held range.
	if got, _ := c.AllocatePodCIDR(ctx, "node-ipam-controller", "c-worker2", req); got != "10.244.1.0/24" {
		t.Fatalf("second ask: %q", got)
	}
	// Unknown instances and bad ranges are refused.
	var se *api.StatusError
	if _, err := c.AllocatePodCIDR(ctx, "node-ipam-controller", "nope", req); !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("unknown instance: %v", err)
	}
	if _, err := c.AllocatePodCIDR(ctx, "node-ipam-controller", "c-worker", api.PodCIDRRequest{ClusterCIDR: "nope", MaskSize: 24}); err != nil {
		t.Fatalf("held range needs no valid request: %v", err)
	}
	// A range another instance holds cannot be adopted.
	taken := api.PodCIDRRequest{ClusterCIDR: "10.244.0.0/16", MaskSize: 24, Adopt: "10.244.1.0/24"}
	r.fakes.instances = append(r.fakes.instances, api.Instance{Name: "c-worker3", State: api.StateRunning})
	if _, err := c.AllocatePodCIDR(ctx, "node-ipam-controller", "c-worker3", taken); !errors.As(err, &se) || se.Code != http.StatusConflict {
		t.Fatalf("adopting a held range: %v", err)
	}
	// A restart keeps the allocations.
	r2 := newRig(t, dir)
	c2 := r2.client("cloud-controller-manager")
	if got, _ := c2.AllocatePodCIDR(ctx, "node-ipam-controller", "c-worker", req); got != "10.244.0.0/24" {
		t.Fatalf("after restart: %q", got)
	}
}
