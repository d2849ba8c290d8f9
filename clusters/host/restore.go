package host

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/internal/procs"
	"github.com/handover-sh/handover/waits"
)

// Restore undoes what Prepare changed in Docker's configuration: daemon.json
// as it was before (or no file, if there was none), the wrapper removed,
// dockerd reloaded. Docker itself, Debian's packages and the kernel settings
// stay (the settings are put back when the last cluster is deleted). It
// returns what it did.
func Restore(ctx context.Context, o Options) ([]string, error) {
	o = o.withDefaults()
	b, ok, err := readBackup(o.DaemonJSON)
	if err != nil || !ok {
		return nil, err
	}
	// First the original with Docker's defaults named, reloaded, so the
	// running dockerd drops the wrapper; then the original byte for byte.
	form, want := reloadForm(b)
	if err := privatefs.WriteFileMode(o.DaemonJSON, form, 0o644); err != nil {
		return nil, err
	}
	reloaded, reloadErr := reloadDocker(ctx, o.DockerPIDFile, func(rt string) bool { return rt != WrapperName && (want == "" || rt == want) })
	if err := restoreDaemon(o.DaemonJSON, b); err != nil {
		return nil, errors.Join(reloadErr, err)
	}
	done := []string{"restored " + o.DaemonJSON + " as it was before `host prepare`"}
	if b.Wrapper != "" {
		done = append(done, "removed "+b.Wrapper)
	}
	if reloadErr != nil {
		return done, reloadErr
	}
	if !reloaded {
		return append(done, "no dockerd runs ("+o.DockerPIDFile+" is absent): it reads the file when it starts"), nil
	}
	return append(done, "reloaded dockerd"), nil
}

// reloadDocker makes dockerd re-read daemon.json (runtimes and
// default-runtime are reloadable with SIGHUP) and waits until its default
// runtime is as wanted; it says whether it reloaded. No dockerd running is
// not an error: it reads the file when it starts.
func reloadDocker(ctx context.Context, pidFile string, ok func(defaultRuntime string) bool) (bool, error) {
	signalled, err := signalDockerd(pidFile)
	if err != nil || !signalled {
		return false, err
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, waits.Of(ctx, WaitDockerReload), true, func(ctx context.Context) (bool, error) {
		return ok(defaultRuntime(ctx)), nil
	})
	if err != nil {
		return true, errorf("dockerd's default runtime is not daemon.json's after a reload: restart Docker")
	}
	return true, nil
}

// DockerPIDFile is where dockerd records its pid.
const DockerPIDFile = "/var/run/docker.pid"

// signalDockerd sends SIGHUP to the dockerd that pidFile names, and says
// whether it did; no file means no dockerd runs. A file that a dockerd
// which died left behind may name any process since (its pid reused), so
// the process must run as dockerd, or nothing is signalled.
func signalDockerd(pidFile string) (bool, error) {
	raw, err := boundedfile.Read(pidFile, 64)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, errorf("reading dockerd's pid: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 { // kill(0) and kill(-1) reach many processes
		return false, errorf("bad %s: %q is not a pid", pidFile, raw)
	}
	prog, err := procs.Program(pid)
	if err != nil {
		return false, errorf("%s names pid %d, which does not run (%v): restart Docker yourself", pidFile, pid, err)
	}
	if prog != "dockerd" {
		return false, errorf("%s names pid %d, which runs %s, not dockerd (the file is stale): not signalling it; restart Docker yourself", pidFile, pid, prog)
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return false, errorf("reloading dockerd (pid %d): %w", pid, err)
	}
	return true, nil
}
