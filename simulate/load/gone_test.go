package load

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// AwaitGone returns once the terminated instances' Nodes are deleted, and
// names those still there when it gives up.
func TestAwaitGone(t *testing.T) {
	node := func(n string) *corev1.Node { return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}} }
	c := fake.NewSimpleClientset(node("w3"), node("w4"))
	ctx := context.Background()
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = c.CoreV1().Nodes().Delete(ctx, "w3", metav1.DeleteOptions{})
	}()
	if left := AwaitGone(ctx, c, []string{"w3"}, 10*time.Second); len(left) != 0 {
		t.Errorf("w3 was deleted, still waiting for %v", left)
	}
	if left := AwaitGone(ctx, c, []string{"w4", "w5"}, 1500*time.Millisecond); !slices.Equal(left, []string{"w4"}) {
		t.Errorf("left %v, want [w4] (w5 never existed)", left)
	}
}
