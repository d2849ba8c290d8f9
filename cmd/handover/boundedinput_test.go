package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/internal/pki"
)

// buildHandover builds this command, without the race detector the tests
// may run under, into dir.
func buildHandover(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "handover")
	start := time.Now()
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("building handover: %v\n%s", err, out)
	}
	if d := time.Since(start); testing.Short() && d > time.Minute {
		t.Skipf("SKIPPING the built binary's inputs in -short: building took %s (a cold build cache)", d.Round(time.Second))
	}
	return bin
}

// Every file a user names is refused at once when it is a device or a
// FIFO, by the built binary as it runs on a runner: a child process with
// its address space capped (ulimit -v), where reading /dev/zero would run
// out of memory and a FIFO would block until killed.
func TestBuiltBinaryRefusesDevicesAndFIFOs(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("SKIPPING: no bash for ulimit")
	}
	dir := t.TempDir()
	bin := buildHandover(t, dir)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ca, err := pki.NewCA("observer-test", []string{"localhost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	caFile := writeTemp(t, "ca.crt", string(ca.CertPEM))
	kc := kubeconfigAt(t, "127.0.0.1:1")
	out := t.TempDir()
	observe := []string{"observe", "--out", out, "--for", "1s", "--kubeconfig", kc}
	manager := slices.Concat(observe, []string{"--manager", "https://127.0.0.1:10257"})
	admin := filepath.Join(t.TempDir(), "admin-token")
	if err := os.WriteFile(admin, []byte(strings.Repeat("a", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	cloudConfig := writeTemp(t, "cloud-config.json", `{"url":"http://127.0.0.1:1","token":"0123456789abcdef0123456789abcdef"}`)
	serve := []string{"simcloud", "serve", "--pod-network", "10.244.0.0/16", "--listen", "127.0.0.1:0", "--state-dir", t.TempDir(),
		"--admin-token-file", admin, "--cloud-config"}
	for _, bad := range []string{"/dev/zero", fifo} {
		for _, tc := range []struct {
			name string
			args []string
		}{
			{"observe --kubeconfig", []string{"observe", "--out", out, "--for", "1s", "--kubeconfig", bad}},
			{"observe --manager-ca", slices.Concat(manager, []string{"--manager-ca", bad})},
			{"observe --manager-token", slices.Concat(manager, []string{"--manager-ca", caFile, "--manager-token", bad})},
			{"observe --audit-log", slices.Concat(observe, []string{"--audit-log", bad})},
			{"kubeconfig certificate-authority", []string{"observe", "--out", out, "--for", "1s", "--kubeconfig",
				writeTemp(t, "kubeconfig", strings.Replace(readFile(t, kc), "insecure-skip-tls-verify: true", "certificate-authority: "+bad, 1))}},
			{"simcloud serve --cloud-config", slices.Concat(serve, []string{bad})},
			{"simcloud serve --admin-token-file", []string{"simcloud", "serve", "--pod-network", "10.244.0.0/16", "--listen", "127.0.0.1:0",
				"--state-dir", t.TempDir(), "--cloud-config", cloudConfig, "--admin-token-file", bad}},
			{"report", []string{"report", bad, "--out", t.TempDir()}},
			{"plan --iam-policy", []string{"plan", "--provider", "aws", "--from", "v1.26.13", "--to", "v1.27.4", "--iam-policy", "ccm=" + bad}},
			{"describe --rancher-cluster", []string{"describe", "--rancher-cluster", bad}},
			{"describe --rke-cluster-yml-after", []string{"describe", "--rke-cluster-yml", "../../rehearsal/rancher/testdata/rke-aws-before-step5.yml", "--rke-cluster-yml-after", bad}},
		} {
			t.Run(tc.name+" "+filepath.Base(bad), func(t *testing.T) {
				refusedAtOnce(t, bin, tc.args, bad)
			})
		}
	}
}

// refusedAtOnce runs bin with args under ulimit -v 4000000 and expects it
// to fail within a second, naming path.
func refusedAtOnce(t *testing.T, bin string, args []string, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The binary and its arguments reach bash as its own arguments, never
	// as shell text.
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", `ulimit -v 4000000; exec "$0" "$@"`, bin}, args...)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("still running after %s: %s", took, stderr.String())
	case !errors.As(err, &exit) || exit.ExitCode() <= 0:
		t.Fatalf("exit %v, want a failure: %s", err, stderr.String())
	case took > time.Second:
		t.Fatalf("refused after %s, want within 1s: %s", took, stderr.String())
	case !strings.Contains(stderr.String(), path+" is ") || !strings.Contains(stderr.String(), "not a regular file"):
		t.Fatalf("the error does not name %s as no regular file: %s", path, stderr.String())
	case strings.Contains(stderr.String(), "out of memory"):
		t.Fatalf("ran out of memory: %s", stderr.String())
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
