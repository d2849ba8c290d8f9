package kindcluster

import (
	"errors"
	"testing"
)

// A failed cleanup joins the create's error, both reachable; a cleanup that
// worked leaves the create's error as it was.
func TestCleanedUpSaysWhatWasLeft(t *testing.T) {
	created, cleanup := errors.New("kubeadm init failed"), errors.New("docker rm failed")
	err := CleanedUp(created, func() error { return cleanup })
	if !LeftBehind(err) || !errors.Is(err, created) || !errors.Is(err, cleanup) {
		t.Fatalf("a failed cleanup: %v", err)
	}
	if err.Error() != "kubeadm init failed; cleaning up after it: docker rm failed" {
		t.Fatalf("message %q", err)
	}
	if err := CleanedUp(created, func() error { return nil }); err != created || LeftBehind(err) {
		t.Fatalf("a cleanup that worked: %v", err)
	}
}
