package observe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	kexec "sigs.k8s.io/kind/pkg/exec"
)

// The managers serve /healthz on 127.0.0.1 of their node. Rather than run
// a process in the node per poll, dial from inside the node container's
// network namespace: a socket stays in the namespace it was made in, so
// keep-alive connections make polling cheap.

// errNetns marks a failure to enter the node: its container is gone or
// restarted under another PID.
var errNetns = errors.New("cannot enter the node's network namespace")

// containerPID is the host PID of a node container's init.
func containerPID(ctx context.Context, container string) (int, error) {
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "inspect", "--format", "{{.State.Pid}}", container))
	if err != nil {
		return 0, fmt.Errorf("inspecting %s: %w", container, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid == 0 {
		return 0, fmt.Errorf("container %s is not running", container)
	}
	return pid, nil
}

// dialInNetns dials addr from the network namespace of pid.
func dialInNetns(ctx context.Context, pid int, network, addr string) (net.Conn, error) {
	target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNetns, err)
	}
	defer target.Close()
	type dialed struct {
		c   net.Conn
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		// This goroutine's thread changes namespace; never hand it back.
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			ch <- dialed{nil, err}
			return
		}
		defer home.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- dialed{nil, fmt.Errorf("%w (pid %d): %v", errNetns, pid, err)}
			return
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread() // back home: the thread may be reused
		}
		ch <- dialed{c, err}
	}()
	r := <-ch
	return r.c, r.err
}
