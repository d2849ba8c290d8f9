package kindcluster

import (
	"os"
	"path/filepath"
	"testing"
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
