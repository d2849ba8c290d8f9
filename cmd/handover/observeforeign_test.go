package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kubeconfigAt is a kubeconfig for a server at addr with a token user.
func kubeconfigAt(t *testing.T, addr string) string {
	return writeTemp(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://`+addr+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
current-context: a
`)
}

func TestObserveForeignBadInputFailsAtOnce(t *testing.T) {
	out := t.TempDir()
	empty := writeTemp(t, "empty", "")
	// A port nothing listens on: the cluster is unreachable.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	kc := kubeconfigAt(t, closed)
	cases := map[string]struct {
		args []string
		want string
	}{
		"manager without kubeconfig":  {[]string{"--manager", "https://10.0.0.1:10257"}, "--manager needs --kubeconfig"},
		"name and kubeconfig":         {[]string{"--kubeconfig", kc, "--name", "x"}, "contradict"},
		"token without manager":       {[]string{"--kubeconfig", kc, "--manager-token", kc}, "need at least one --manager"},
		"token without a CA":          {[]string{"--kubeconfig", kc, "--manager", "https://10.0.0.1:10257", "--manager-token", kc}, "--manager-token needs --manager-ca"},
		"rbac subject alone":          {[]string{"--rbac-subject", "user:ci"}, "--rbac-subject needs --print-rbac"},
		"empty kubeconfig":            {[]string{"--kubeconfig", empty}, "has no contexts"},
		"unknown context":             {[]string{"--kubeconfig", kc, "--context", "nope"}, `no context "nope"`},
		"manager on an unknown port":  {[]string{"--kubeconfig", kc, "--manager", "https://10.0.0.1:443"}, "say which it is"},
		"manager not https":           {[]string{"--kubeconfig", kc, "--manager", "http://10.0.0.1:10257"}, "want https://HOST:PORT"},
		"no such audit log":           {[]string{"--kubeconfig", kc, "--audit-log", filepath.Join(out, "nope")}, "--audit-log"},
		"unreachable cluster":         {[]string{"--kubeconfig", kc}, "cannot reach the cluster"},
		"unknown manager in the name": {[]string{"--kubeconfig", kc, "--manager", "scheduler=https://10.0.0.1:10259"}, "is no manager"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			err := runCLI(t, append([]string{"observe", "--out", out, "--for", "1s"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %s to fail", d)
			}
		})
	}
}

func TestObservePrintsItsRBAC(t *testing.T) {
	out, err := runCLIOut(t, "observe", "--print-rbac")
	cluster, role, _ := strings.Cut(out, "\nkind: Role\n")
	if err != nil || !strings.Contains(cluster, "kind: ClusterRole") || strings.Contains(cluster, "leases") ||
		!strings.Contains(role, "namespace: kube-system") || !strings.Contains(role, "resources: [leases]") || strings.Contains(out, "Binding") {
		t.Fatalf("err %v, out:\n%s", err, out)
	}
	out, err = runCLIOut(t, "observe", "--print-rbac", "--rbac-subject", "serviceaccount:kube-system:handover-observer")
	if err != nil || !strings.Contains(out, "kind: ClusterRoleBinding") || !strings.Contains(out, "kind: RoleBinding") {
		t.Fatalf("err %v, out:\n%s", err, out)
	}
	if _, err := runCLIOut(t, "observe", "--print-rbac", "--rbac-subject", "robot"); err == nil || !strings.Contains(err.Error(), "serviceaccount:NAMESPACE:NAME") {
		t.Fatalf("a bad subject: %v", err)
	}
}
