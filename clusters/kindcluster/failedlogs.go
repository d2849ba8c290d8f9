package kindcluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/privatefs"
)

// A node whose add failed is removed at once (a half-joined node must not
// linger in the cluster), but its logs are what explain the failure: they
// are kept here, in the cluster's private directory, until CollectLogs
// exports them with the rest, or the cluster is deleted.
func failedNodesDir(cluster string) string {
	return filepath.Join(nodeimage.DefaultCacheDir(), "clusters", cluster, "failed-nodes")
}

// keepNodeLogs saves a node container's journal, console and pod logs
// before the container goes. Best effort: what cannot be read is noted in
// errors.txt beside what could.
func keepNodeLogs(cluster, node string) (string, error) {
	dir := filepath.Join(failedNodesDir(cluster), node)
	if err := privatefs.MkdirAll(dir); err != nil {
		return "", err
	}
	var problems bytes.Buffer
	for file, args := range map[string][]string{
		"journal.log":     {"exec", node, "journalctl", "--no-pager"},
		"console.log":     {"logs", node},
		"inspect.json":    {"inspect", node},
		"static-pods.txt": {"exec", node, "sh", "-c", "head -n 400 /etc/kubernetes/manifests/*"},
	} {
		out, err := kexec.CombinedOutputLines(kexec.Command("docker", args...))
		if err != nil {
			fmt.Fprintf(&problems, "%s: %v\n", file, err)
		}
		if werr := privatefs.WriteFile(filepath.Join(dir, file), []byte(strings.Join(append(out, ""), "\n"))); werr != nil {
			return dir, werr
		}
	}
	if err := kexec.Command("docker", "cp", node+":/var/log/pods", filepath.Join(dir, "pods")).Run(); err != nil {
		fmt.Fprintf(&problems, "pods: %v\n", err)
	}
	if problems.Len() > 0 {
		return dir, privatefs.WriteFile(filepath.Join(dir, "errors.txt"), problems.Bytes())
	}
	return dir, nil
}

// exportFailedNodes moves the kept logs of failed nodes under dir.
func exportFailedNodes(cluster, dir string) error {
	src := failedNodesDir(cluster)
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil // none failed
	}
	dst := filepath.Join(dir, "failed-nodes")
	if err := privatefs.MkdirAllMode(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if err := privatefs.Move(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return fmt.Errorf("exporting the logs of failed node %s: %w", e.Name(), err)
		}
	}
	return os.Remove(src)
}
