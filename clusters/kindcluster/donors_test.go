package kindcluster

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/handover-sh/handover/clusters/engine"
)

func cpNodes(names ...string) []nodes.Node {
	var out []nodes.Node
	for _, n := range names {
		out = append(out, node{engine.Container{Name: n}})
	}
	return out
}

func TestDonorAvoidsLeavingNodesAndRemovalWaitsForJoins(t *testing.T) {
	b := newDonorBook()
	cps := cpNodes("c-control-plane", "c-control-plane2", "c-control-plane3")
	d, release, err := b.pickDonor(cps)
	if err != nil || d.String() != "c-control-plane3" {
		t.Fatalf("donor = %v, %v; want the newest control plane", d, err)
	}
	// Removing the donor waits for the join...
	done := make(chan error, 1)
	go func() {
		_, err := b.leave(context.Background(), "c-control-plane3", time.Minute)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("removal did not wait for the join copying from it (err %v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	// ...and a join meanwhile picks another donor.
	for b.isLeaving("c-control-plane3") == false {
		time.Sleep(time.Millisecond)
	}
	d2, release2, err := b.pickDonor(cps)
	if err != nil || d2.String() != "c-control-plane2" {
		t.Fatalf("second donor = %v, %v; want one not being removed", d2, err)
	}
	release2()
	release()
	if err := <-done; err != nil {
		t.Fatalf("removal after the join finished: %v", err)
	}
}

func TestDonorRemovalGivesUpAfterLimit(t *testing.T) {
	b := newDonorBook()
	_, release, _ := b.pickDonor(cpNodes("c-control-plane"))
	defer release()
	if _, err := b.leave(context.Background(), "c-control-plane", 20*time.Millisecond); err == nil {
		t.Fatal("want an error when a join holds the node past the limit")
	}
	if b.isLeaving("c-control-plane") {
		t.Fatal("a removal that gave up must clear its mark")
	}
	if _, _, err := b.pickDonor(cpNodes()); err == nil {
		t.Fatal("no control plane: want an error")
	}
}

// A control plane still joining has no admin.conf to give: a concurrent
// join copies from an older one (a worker join once failed reading it).
func TestDonorAvoidsJoiningNodes(t *testing.T) {
	b := newDonorBook()
	done := b.arrive("c-control-plane4")
	d, release, err := b.pickDonor(cpNodes("c-control-plane3", "c-control-plane4"))
	if err != nil || d.String() != "c-control-plane3" {
		t.Fatalf("picked %v (%v), want c-control-plane3", d, err)
	}
	release()
	done()
	if d, _, _ := b.pickDonor(cpNodes("c-control-plane3", "c-control-plane4")); d.String() != "c-control-plane4" {
		t.Fatalf("once joined, the newest is the donor: got %s", d)
	}
}
