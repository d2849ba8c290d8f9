package load

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// warningLimit bounds a quoted event message: a provider's error can
// carry a whole response body.
const warningLimit = 600

// lastWarning is the latest Warning event on the load's Service name, as
// "; its last warning: <component> <reason>: <message>" (what kubectl
// describe shows, so a Service left without an address says why: a
// cloud's refusal, in the service controller's words), or "" when there is
// none or the events cannot be read.
func lastWarning(ctx context.Context, c kubernetes.Interface, name string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	sel := fields.Set{"involvedObject.kind": "Service", "involvedObject.name": name, "type": corev1.EventTypeWarning}.AsSelector().String()
	evs, err := c.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return ""
	}
	var last *corev1.Event
	for i, e := range evs.Items {
		if e.Type == corev1.EventTypeWarning && e.InvolvedObject.Name == name && (last == nil || seen(e).After(seen(*last))) {
			last = &evs.Items[i]
		}
	}
	if last == nil {
		return ""
	}
	msg := last.Message
	if len(msg) > warningLimit {
		msg = strings.ToValidUTF8(msg[:warningLimit], "") + "…"
	}
	return fmt.Sprintf("; its last warning: %s %s: %s", last.Source.Component, last.Reason, msg)
}

// seen is when an event last happened, whichever field its recorder set.
func seen(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}
