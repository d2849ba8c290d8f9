package kindcluster

import (
	"context"
	"errors"
	"testing"

	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/handover-sh/handover/clusters/engine"
)

type namedNode struct {
	nodes.Node
	name string
}

func (n namedNode) String() string { return n.name }

// A holder that fails to give the image (removed meanwhile) passes it on
// to the next; the copy fails only when every holder failed, and a ref
// nobody has is left to the kubelet.
func TestCopyImageFallsBackToAnotherHolder(t *testing.T) {
	defer func(l func(context.Context, nodes.Node) (map[string]bool, error), p func(context.Context, engine.Exec, engine.Exec) error) {
		listImages, pipe = l, p
	}(listImages, pipe)
	listImages = func(_ context.Context, n nodes.Node) (map[string]bool, error) {
		return map[string]bool{"img": n.String() != "new"}, nil
	}
	gone := map[string]bool{"cp1": true}
	var from []string
	pipe = func(_ context.Context, export, _ engine.Exec) error {
		from = append(from, export.Container)
		if gone[export.Container] {
			return errors.New("exit status 126")
		}
		return nil
	}
	all := []nodes.Node{namedNode{name: "cp1"}, namedNode{name: "cp2"}}
	target := namedNode{name: "new"}
	if err := copyImage(context.Background(), all, target, "img"); err != nil || len(from) != 2 || from[1] != "cp2" {
		t.Errorf("copied from %v: %v, want cp1 then cp2", from, err)
	}
	gone["cp2"] = true
	if err := copyImage(context.Background(), all, target, "img"); err == nil {
		t.Error("every holder failed and the copy did not")
	}
	if err := copyImage(context.Background(), all, target, "nobody-has-it"); err != nil {
		t.Errorf("an image nobody has: %v", err)
	}
}
