package readonly

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// kubeconfig writes a kubeconfig into dir whose cluster and user carry the
// extra fields given (YAML flow mappings' contents).
func kubeconfig(t *testing.T, dir, cluster, user string) string {
	t.Helper()
	p := filepath.Join(dir, "kubeconfig")
	body := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"` + cluster + `}}]
users: [{name: u, user: {` + user + `}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
current-context: a
`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The kubeconfig, and every file its context names, is read through
// boundedfile: a device or a FIFO is refused at once, by name.
func TestConfigRefusesDevicesAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ path, says string }{
		"kubeconfig /dev/zero":  {"/dev/zero", "/dev/zero is a character device"},
		"kubeconfig FIFO":       {fifo, "is a named pipe (FIFO)"},
		"CA FIFO":               {kubeconfig(t, t.TempDir(), ", certificate-authority: "+fifo, "token: t"), "certificate-authority: " + fifo + " is a named pipe"},
		"client cert /dev/zero": {kubeconfig(t, t.TempDir(), "", "client-certificate: /dev/zero, client-key: /dev/zero"), "client-certificate: /dev/zero is a character device"},
		"token file FIFO":       {kubeconfig(t, t.TempDir(), "", "tokenFile: "+fifo), "tokenFile: " + fifo + " is a named pipe"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := Config(tc.path, ""); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("err = %v, want %q", err, tc.says)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("still reading after 5s")
			}
		})
	}
}

// The files a kubeconfig names are read into it, relative paths from the
// kubeconfig's directory as kubectl takes them; a token file stays named,
// for client-go to read again as it rotates.
func TestConfigInlinesTheFilesItNames(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"ca.crt": "CA", "token": "tok\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rc, err := Config(kubeconfig(t, dir, ", certificate-authority: ca.crt", "tokenFile: token"), "")
	if err != nil {
		t.Fatal(err)
	}
	if string(rc.CAData) != "CA" || rc.CAFile != "" || rc.BearerToken != "tok" || rc.BearerTokenFile != filepath.Join(dir, "token") {
		t.Fatalf("CA %q file %q, token %q file %q", rc.CAData, rc.CAFile, rc.BearerToken, rc.BearerTokenFile)
	}
	_, err = Config(kubeconfig(t, t.TempDir(), ", certificate-authority: /dev/null, certificate-authority-data: Q0E=", "token: t"), "")
	if err == nil || !strings.Contains(err.Error(), "both given") {
		t.Fatalf("a path and data: %v", err)
	}
}
