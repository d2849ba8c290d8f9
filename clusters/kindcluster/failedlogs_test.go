package kindcluster

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kerrors "sigs.k8s.io/kind/pkg/errors"
	kexec "sigs.k8s.io/kind/pkg/exec"
)

// The logs kept of a node whose add failed go out with the cluster's logs,
// and only once.
func TestExportFailedNodes(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	cluster := "unit-" + filepath.Base(t.TempDir())
	out := t.TempDir()
	if err := exportFailedNodes(cluster, out); err != nil {
		t.Fatalf("no failed node: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "failed-nodes")); !os.IsNotExist(err) {
		t.Fatalf("failed-nodes made with nothing to put in it: %v", err)
	}
	kept := filepath.Join(failedNodesDir(cluster), cluster+"-control-plane9")
	if err := os.MkdirAll(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(failedNodesDir(cluster)) })
	if err := os.WriteFile(filepath.Join(kept, "journal.log"), []byte("kubelet: etcd not ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := exportFailedNodes(cluster, out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out, "failed-nodes", cluster+"-control-plane9", "journal.log"))
	if err != nil || string(got) != "kubelet: etcd not ready\n" {
		t.Fatalf("exported journal: %q, %v", got, err)
	}
	if _, err := os.Stat(failedNodesDir(cluster)); !os.IsNotExist(err) {
		t.Fatalf("kept logs left behind after export: %v", err)
	}
}

// kind's log export fails `crictl images` on every node (node images have
// no crictl): that is no error of the export; anything else still is.
func TestLogExportWithoutCrictl(t *testing.T) {
	crictl := func(node string) error {
		return &kexec.RunError{Command: []string{"docker", "exec", node, "crictl", "images"}, Inner: errors.New("exit status 126")}
	}
	if err := withoutNoCrictl(kerrors.NewAggregate([]error{crictl("a"), crictl("b")})); err != nil {
		t.Fatalf("only crictl failed: %v", err)
	}
	other := &kexec.RunError{Command: []string{"docker", "exec", "a", "journalctl"}, Inner: errors.New("exit status 1")}
	err := withoutNoCrictl(kerrors.NewAggregate([]error{crictl("a"), other}))
	if err == nil || !strings.Contains(err.Error(), "journalctl") || strings.Contains(err.Error(), "crictl") {
		t.Fatalf("want the journalctl failure alone, got %v", err)
	}
	if err := withoutNoCrictl(nil); err != nil {
		t.Fatal(err)
	}
}
