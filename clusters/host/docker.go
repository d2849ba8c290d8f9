package host

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/waits"
)

// DockerLog is where a dockerd started by Prepare writes its log.
const DockerLog = "/var/log/handover-dockerd.log"

// DockerReachable reports whether the Docker daemon answers.
func DockerReachable(ctx context.Context) bool {
	_, err := kexec.Output(kexec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}"))
	return err == nil
}

func ensureDocker(ctx context.Context, record func(string)) error {
	if DockerReachable(ctx) {
		return nil
	}
	if _, err := exec.LookPath("dockerd"); err != nil {
		if err := aptInstall(ctx, "docker.io"); err != nil {
			return err
		}
		record("installed Debian's docker.io")
	}
	if err := startDocker(ctx); err != nil {
		return err
	}
	record("started dockerd (log: " + DockerLog + ")")
	return nil
}

// buildTools are commands the image build needs, by Debian package.
var buildTools = map[string]string{"debootstrap": "debootstrap", "gcc": "gcc"}

func ensureBuildTools(ctx context.Context, record func(string)) error {
	for cmd, pkg := range buildTools {
		if _, err := exec.LookPath(cmd); err == nil {
			continue
		}
		if err := aptInstall(ctx, pkg); err != nil {
			return err
		}
		record("installed Debian's " + pkg + " (needed to build node images)")
	}
	return nil
}

// aptInstall installs Debian packages, or says how to get them elsewhere.
func aptInstall(ctx context.Context, pkgs ...string) error {
	if _, err := os.Stat("/etc/debian_version"); err != nil {
		return errorf("%v not installed and this is not a Debian host: install them and run again", pkgs)
	}
	if os.Geteuid() != 0 {
		return errorf("%v not installed: run `handover host prepare` as root, or install them yourself", pkgs)
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	for _, args := range [][]string{{"update", "-qq"}, append([]string{"install", "-y", "-qq"}, pkgs...)} {
		cmd := kexec.CommandContext(ctx, "apt-get", args...).SetEnv(env...)
		if _, err := kexec.CombinedOutputLines(cmd); err != nil {
			return errorf("installing %v: %w", pkgs, err)
		}
	}
	return nil
}

// startDocker starts the daemon through systemd where systemd runs the host,
// otherwise as a detached process, then waits for it to answer.
func startDocker(ctx context.Context) error {
	if systemdIsInit() {
		if err := kexec.CommandContext(ctx, "systemctl", "start", "docker").Run(); err != nil {
			return errorf("systemctl start docker: %w", err)
		}
	} else if err := spawnDockerd(); err != nil {
		return err
	}
	return waitDocker(ctx, waits.Of(ctx, WaitDockerStart))
}

func systemdIsInit() bool {
	comm, err := os.ReadFile("/proc/1/comm")
	return err == nil && strings.TrimSpace(string(comm)) == "systemd"
}

func spawnDockerd() error {
	logf, err := privatefs.OpenAppend(DockerLog)
	if err != nil {
		return errorf("opening %s: %w", DockerLog, err)
	}
	defer logf.Close()
	cmd := exec.Command("dockerd")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return errorf("starting dockerd: %w", err)
	}
	return cmd.Process.Release()
}

func waitDocker(ctx context.Context, limit time.Duration) error {
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		return DockerReachable(ctx), nil
	})
	if err != nil {
		return errorf("dockerd did not answer within %s; see %s", limit, DockerLog)
	}
	return nil
}
