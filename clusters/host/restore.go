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

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/waits"
)

// Restore undoes what Prepare changed in Docker's configuration: daemon.json
// as it was before (or no file, if there was none), the wrapper removed,
// dockerd reloaded. Docker itself, Debian's packages and the kernel settings
// stay (the settings are put back when the last cluster is deleted). It
// returns what it did.
func Restore(ctx context.Context, o Options) ([]string, error) {
	if o.DaemonJSON == "" {
		o.DaemonJSON = "/etc/docker/daemon.json"
	}
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
	reloadErr := reloadDocker(ctx, func(rt string) bool { return rt != WrapperName && (want == "" || rt == want) })
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
	return append(done, "reloaded dockerd"), nil
}

// reloadDocker makes dockerd re-read daemon.json (runtimes and
// default-runtime are reloadable with SIGHUP) and waits until its default
// runtime is as wanted. No dockerd running is not an error: it reads the
// file when it starts.
func reloadDocker(ctx context.Context, ok func(defaultRuntime string) bool) error {
	raw, err := os.ReadFile("/var/run/docker.pid")
	if err != nil {
		return nil
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return errorf("bad /var/run/docker.pid: %w", err)
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return errorf("reloading dockerd: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, waits.Of(ctx, WaitDockerReload), true, func(ctx context.Context) (bool, error) {
		return ok(defaultRuntime(ctx)), nil
	})
	if err != nil {
		return errorf("dockerd did not drop the wrapper on a reload of daemon.json: restart Docker")
	}
	return nil
}
