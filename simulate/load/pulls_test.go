package load

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A pull is done once the container ran or ended, failed once the kubelet
// gave up on the image, and under way otherwise (a container created, or
// waiting for its sandbox).
func TestPullOutcome(t *testing.T) {
	status := func(s corev1.ContainerState) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "echo", State: s}}}}
	}
	for name, c := range map[string]struct {
		pod             *corev1.Pod
		outcome, reason string
	}{
		"pending, no status": {&corev1.Pod{}, "", ""},
		"creating":           {status(corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}), "", ""},
		"running":            {status(corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}), "true", ""},
		"ended":              {status(corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}), "true", ""},
		"refused": {status(corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "401 Unauthorized"}}),
			"false", "ErrImagePull: 401 Unauthorized"},
		"backing off": {status(corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}), "false", "ImagePullBackOff:"},
	} {
		if o, r := pullOutcome(c.pod); o != c.outcome || r != c.reason {
			t.Errorf("%s: %q %q, want %q %q", name, o, r, c.outcome, c.reason)
		}
	}
}

// A worker the load joins pulls with its own version's credentials, and
// none where nothing is pulled.
func TestJoinedWorkersPullCredentials(t *testing.T) {
	flags := func(v string) map[string]string { return map[string]string{"by": v} }
	g := &Generator{o: Options{PullImage: "r/echo:v1", PullCredentials: flags}}
	if got := g.pullCredentials("v1.29.15"); got["by"] != "v1.29.15" {
		t.Errorf("a v1.29.15 worker joins with %v", got)
	}
	for what, g := range map[string]*Generator{
		"no image":        {o: Options{PullCredentials: flags}},
		"no credentials":  {o: Options{PullImage: "r/echo:v1"}},
		"unknown version": g,
	} {
		v := "v1.29.15"
		if what == "unknown version" {
			v = ""
		}
		if got := g.pullCredentials(v); got != nil {
			t.Errorf("%s: %v", what, got)
		}
	}
}
