package kindcluster

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"sigs.k8s.io/kind/pkg/log"
)

// A joining node's container gets the binds the cluster's hooks make of
// its donor's (with kind's own), and its donor's only without hooks; a
// hook's refusal starts no container.
func TestAJoiningNodesBindsAreTheHooks(t *testing.T) {
	donor := []string{"/state/cloud.conf:/etc/cloud.conf:ro", "/state/manager.key:/etc/manager.key:ro"}
	c := newHandle("c1", log.NoopLogger{})
	spec, err := c.nodeSpec(context.Background(), "c1-worker3", RoleWorker, "img", donor)
	if err != nil || !reflect.DeepEqual(spec.Binds, append([]string{"/lib/modules:/lib/modules:ro"}, donor...)) {
		t.Errorf("without hooks: binds %v (%v), want the donor's", spec.Binds, err)
	}
	var asked []string
	c.Hooks.Binds = func(_ context.Context, node, role string, got []string) ([]string, error) {
		asked = append([]string{node, role}, got...)
		return []string{"/state/nodes/" + node + "/kubelet.env:/etc/default/kubelet:ro"}, nil
	}
	spec, err = c.nodeSpec(context.Background(), "c1-worker3", RoleWorker, "img", donor)
	want := []string{"/lib/modules:/lib/modules:ro", "/state/nodes/c1-worker3/kubelet.env:/etc/default/kubelet:ro"}
	if err != nil || !reflect.DeepEqual(spec.Binds, want) {
		t.Errorf("with hooks: binds %v (%v), want %v", spec.Binds, err, want)
	}
	if !reflect.DeepEqual(asked, append([]string{"c1-worker3", RoleWorker}, donor...)) {
		t.Errorf("the hook was asked %v", asked)
	}
	c.Hooks.Binds = func(context.Context, string, string, []string) ([]string, error) { return nil, errors.New("no key") }
	if _, err := c.nodeSpec(context.Background(), "c1-worker3", RoleWorker, "img", donor); err == nil {
		t.Error("a hook's refusal ignored")
	}
}

// A removed node is told to the hooks, and their failure is the removal's.
func TestAGoneNodeIsToldToTheHooks(t *testing.T) {
	c := newHandle("c1", log.NoopLogger{})
	if err := c.nodeGone(context.Background(), "c1-worker"); err != nil {
		t.Errorf("without hooks: %v", err)
	}
	var told string
	c.Hooks.Gone = func(_ context.Context, node string) error { told = node; return errors.New("keys unreadable") }
	if err := c.nodeGone(context.Background(), "c1-worker"); err == nil || told != "c1-worker" {
		t.Errorf("told %q, err %v", told, err)
	}
}
