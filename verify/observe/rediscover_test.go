package observe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/timeline"
)

// A cloud-controller-manager whose pod appears while observing is found
// again and sampled from then on, and recorded as found.
func TestManagersFoundWhileObservingAreSampled(t *testing.T) {
	mgr := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("[+]ping ok\nhealthz check passed\n"))
	}))
	defer mgr.Close()
	u, _ := url.Parse(mgr.URL)
	kcm := ManagerURL{Endpoint: Endpoint{Manager: "kube-controller-manager", Instance: "cp-1"}, URL: u}
	ccm := ManagerURL{Endpoint: Endpoint{Manager: "cloud-controller-manager", Instance: "cp-1"}, URL: u}
	reach, err := Foreign(ForeignOptions{Managers: []ManagerURL{kcm}})
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewSimpleClientset()
	// Discovery as the command runs it: here, the CCM once its pod exists.
	rediscover := func(ctx context.Context) ([]ManagerURL, error) {
		pods, err := client.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{})
		if err != nil || len(pods.Items) == 0 {
			return []ManagerURL{kcm}, err
		}
		return []ManagerURL{kcm, ccm}, nil
	}
	var buf testenv.LockedBuffer
	ob := Start(context.Background(), Options{Reach: reach, Client: client, REST: &rest.Config{Host: mgr.URL}, Timeline: timeline.NewWriter(&buf),
		ManagerPods: true, Rediscover: rediscover, HealthEvery: 20 * time.Millisecond, MetricsEvery: time.Second, ProbeEvery: time.Second, NoLBProbes: true})
	time.Sleep(200 * time.Millisecond)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "aws-cloud-controller-manager-x", Namespace: "kube-system"},
		Spec: corev1.PodSpec{NodeName: "cp-1", Containers: []corev1.Container{{Name: "c", Command: []string{"/bin/aws-cloud-controller-manager"}}}}}
	if _, err := client.CoreV1().Pods("kube-system").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), `"manager":"cloud-controller-manager","instance":"cp-1"`) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	ob.Stop()
	evs, err := timeline.Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	var found, samples int
	for _, e := range evs {
		switch {
		case e.Kind == timeline.ManagersFound && e.Attrs[timeline.FixedManagers] == "cloud-controller-manager@cp-1":
			found++
		case e.Kind == timeline.Health && e.Manager == "cloud-controller-manager":
			samples++
		}
	}
	if found != 1 || samples == 0 {
		t.Fatalf("found recorded %d time(s), %d samples of the CCM:\n%s", found, samples, buf.String())
	}
}
