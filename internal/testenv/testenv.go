// Package testenv holds what integration tests share: the decision to run
// or skip, a logger that writes to the test log, and where artifacts go.
package testenv

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	kexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/host"
	"github.com/handover-sh/handover/clusters/nodeimage"
)

// RequireIntegration skips when Docker or the node image is missing, saying
// why, unless HANDOVER_REQUIRE_INTEGRATION=1 makes that a failure (CI).
func RequireIntegration(t *testing.T, version string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test skipped in -short mode")
	}
	why := ""
	if !host.DockerReachable(context.Background()) {
		why = "Docker is not reachable (run `handover host prepare`)"
	} else if kexec.Command("docker", "image", "inspect", nodeimage.NodeImage(version)).Run() != nil {
		why = "node image " + nodeimage.NodeImage(version) + " is missing (run `make images`)"
	}
	if why == "" {
		return
	}
	if os.Getenv("HANDOVER_REQUIRE_INTEGRATION") == "1" {
		t.Fatalf("integration test required but cannot run: %s", why)
	}
	t.Skipf("SKIPPING integration test: %s", why)
}

// Logger writes progress (verbosity 0) and warnings to the test log.
type Logger struct{ T *testing.T }

var _ log.Logger = Logger{}

func (l Logger) Warn(m string)                    { l.T.Log("WARN " + m) }
func (l Logger) Warnf(f string, a ...interface{}) { l.T.Logf("WARN "+f, a...) }
func (l Logger) Error(m string)                   { l.T.Log("ERROR " + m) }
func (l Logger) Errorf(f string, a ...interface{}) {
	l.T.Logf("ERROR "+f, a...)
}

// V returns a logger for level v: only level 0 is written.
func (l Logger) V(v log.Level) log.InfoLogger {
	if v > 0 {
		return log.NoopInfoLogger{}
	}
	return l
}
func (l Logger) Info(m string)                    { l.T.Log(m) }
func (l Logger) Infof(f string, a ...interface{}) { l.T.Logf(f, a...) }
func (l Logger) Enabled() bool                    { return true }

// ArtifactsDir is where logs of a failed run are kept.
func ArtifactsDir(t *testing.T) string {
	if d := os.Getenv("HANDOVER_ARTIFACTS"); d != "" {
		return filepath.Join(d, t.Name())
	}
	return filepath.Join(os.TempDir(), "handover-artifacts", t.Name())
}

// HandoverBinary builds the CLI, which runs a cluster's simcloud.
func HandoverBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "handover")
	if _, err := kexec.CombinedOutputLines(kexec.Command("go", "build", "-o", out, "github.com/handover-sh/handover/cmd/handover")); err != nil {
		t.Fatalf("building handover: %v", err)
	}
	return out
}
