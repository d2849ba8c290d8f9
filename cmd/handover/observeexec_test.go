package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// execKubeconfig is a kubeconfig for a closed port whose user runs an exec
// plugin that leaves marker behind when it runs.
func execKubeconfig(t *testing.T, marker string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return writeTemp(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://`+addr+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: ["-c", "touch `+marker+`; exit 1"], env: [{name: AWS_PROFILE, value: ci}], interactiveMode: Never}}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
current-context: a
`)
}

// --no-exec refuses a kubeconfig with an exec plugin before anything is
// contacted or run; without it, observe names the command on stderr before
// the plugin runs.
func TestObserveExecPlugin(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	kc := execKubeconfig(t, marker)
	out := t.TempDir()
	err := runCLI(t, "observe", "--kubeconfig", kc, "--no-exec", "--out", out, "--for", "1s")
	if err == nil || !strings.Contains(err.Error(), "runs an exec plugin for its credentials (/bin/sh -c \"touch "+marker+"; exit 1\"): refused by --no-exec") {
		t.Fatalf("--no-exec: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("--no-exec ran the plugin")
	}
	if err := runCLI(t, "observe", "--no-exec"); err == nil || !strings.Contains(err.Error(), "--no-exec needs --kubeconfig") {
		t.Fatalf("--no-exec alone: %v", err)
	}

	cmd := newRootCommand()
	var stdout, stderr bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"observe", "--kubeconfig", kc, "--out", out, "--for", "1s"})
	if err := cmd.ExecuteContext(context.Background()); err == nil {
		t.Fatal("an unreachable cluster observed")
	}
	said := stderr.String()
	if !strings.Contains(said, "kubeconfig "+kc+" runs an exec plugin for its credentials, as uid ") ||
		!strings.Contains(said, `: /bin/sh -c "touch `+marker+`; exit 1" with AWS_PROFILE set (--no-exec refuses it)`) {
		t.Fatalf("stderr: %q", said)
	}
	if strings.Contains(stdout.String(), "exec plugin") {
		t.Fatalf("announced on stdout: %q", stdout.String())
	}
}
