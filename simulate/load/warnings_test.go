package load

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A Service left without an address says why, in the service
// controller's latest warning; none said, nothing added.
func TestAServiceWithoutAnAddressSaysWhy(t *testing.T) {
	ev := func(name, reason, msg string, at time.Time) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
			InvolvedObject: corev1.ObjectReference{Kind: "Service", Name: "web-0", Namespace: Namespace},
			Type:           corev1.EventTypeWarning, Reason: reason, Message: msg, Source: corev1.EventSource{Component: "service-controller"},
			LastTimestamp: metav1.NewTime(at)}
	}
	now := time.Now()
	c := fake.NewSimpleClientset(ev("a", "SyncLoadBalancerFailed", "older", now.Add(-time.Minute)),
		ev("b", "SyncLoadBalancerFailed", "Error syncing load balancer: 400 IPv4BasicSkuPublicIpCountLimitReached "+strings.Repeat("x", 2000), now))
	got := lastWarning(context.Background(), c, "web-0")
	if !strings.HasPrefix(got, "; its last warning: service-controller SyncLoadBalancerFailed: Error syncing load balancer: 400 IPv4BasicSkuPublicIpCountLimitReached") || len(got) > warningLimit+100 {
		t.Errorf("got %q", got)
	}
	if got := lastWarning(context.Background(), fake.NewSimpleClientset(), "web-0"); got != "" {
		t.Errorf("without events: %q", got)
	}
}
