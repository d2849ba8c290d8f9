package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/internal/procs"
)

// A docker.pid that a dockerd which died left behind names whatever
// process took its pid since: that process is not signalled. One running
// as dockerd is.
func TestOnlyDockerdIsReloaded(t *testing.T) {
	other := startAs(t, "sleep")
	pidFile := filepath.Join(t.TempDir(), "docker.pid")
	writePID(t, pidFile, other.Process.Pid)
	signalled, err := signalDockerd(pidFile)
	if signalled || err == nil || !strings.Contains(err.Error(), "runs sleep, not dockerd") {
		t.Fatalf("a pid file naming sleep: signalled %v, error %v", signalled, err)
	}
	if ended(other) {
		t.Fatal("the process the stale pid file names was signalled")
	}

	dockerd := startAs(t, "dockerd")
	writePID(t, pidFile, dockerd.Process.Pid)
	if signalled, err := signalDockerd(pidFile); !signalled || err != nil {
		t.Fatalf("dockerd: signalled %v, error %v", signalled, err)
	}
	if err := dockerd.Wait(); !hungUp(err) {
		t.Fatalf("dockerd did not get SIGHUP: %v", err)
	}

	for _, bad := range []string{"-1", "0", "x"} {
		if err := os.WriteFile(pidFile, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if signalled, err := signalDockerd(pidFile); signalled || err == nil {
			t.Errorf("pid %q: signalled %v, error %v", bad, signalled, err)
		}
	}
	if signalled, err := signalDockerd(filepath.Join(t.TempDir(), "none")); signalled || err != nil {
		t.Errorf("no pid file (no dockerd): signalled %v, error %v", signalled, err)
	}
}

// `host restore` with a stale pid file puts daemon.json back, signals
// nothing and says so; with no pid file it says no dockerd was reloaded.
func TestRestoreSaysWhatItReloaded(t *testing.T) {
	dir := t.TempDir()
	o := Options{DaemonJSON: filepath.Join(dir, "daemon.json"), DockerPIDFile: filepath.Join(dir, "docker.pid")}
	if _, err := configureDaemon(o.DaemonJSON, filepath.Join(dir, "wrapper"), func(string) {}); err != nil {
		t.Fatal(err)
	}
	other := startAs(t, "sleep")
	writePID(t, o.DockerPIDFile, other.Process.Pid)
	done, err := Restore(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "not dockerd") || strings.Contains(strings.Join(done, "; "), "reloaded") {
		t.Fatalf("a stale pid file: did %q, error %v", done, err)
	}
	if ended(other) {
		t.Fatal("restore signalled the process a stale pid file names")
	}
	if _, err := os.Stat(o.DaemonJSON); !os.IsNotExist(err) {
		t.Fatalf("daemon.json not restored (there was none): %v", err)
	}

	if _, err := configureDaemon(o.DaemonJSON, filepath.Join(dir, "wrapper"), func(string) {}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(o.DockerPIDFile); err != nil {
		t.Fatal(err)
	}
	done, err = Restore(context.Background(), o)
	if err != nil || !strings.Contains(done[len(done)-1], "no dockerd runs") {
		t.Fatalf("no dockerd: did %q, error %v", done, err)
	}
}

// startAs runs sleep under the program name name (its argv[0]) and returns
// once it runs as that.
func startAs(t *testing.T, name string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.Args[0] = name
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Until the child has called exec, its command line is the test's.
	deadline := time.Now().Add(5 * time.Second)
	for prog, _ := procs.Program(cmd.Process.Pid); prog != name; prog, _ = procs.Program(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the child runs as %q, not %q", prog, name)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd
}

func writePID(t *testing.T, path string, pid int) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ended reports whether cmd's process has exited (sleep dies of a SIGHUP).
func ended(cmd *exec.Cmd) bool {
	time.Sleep(200 * time.Millisecond) // a delivered SIGHUP ends sleep at once
	var ws syscall.WaitStatus
	pid, err := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil)
	return err != nil || pid != 0
}

func hungUp(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGHUP
}
