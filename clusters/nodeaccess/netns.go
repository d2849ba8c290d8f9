package nodeaccess

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// ErrNetns marks a failure to enter a node: its container is gone or
// restarted under another PID.
var ErrNetns = errors.New("cannot enter the node's network namespace")

// Dial dials addr from the network namespace of pid. A socket stays in the
// namespace it was made in, so a keep-alive connection made here keeps
// serving polls with no further system call of this kind.
func Dial(ctx context.Context, pid int, network, addr string) (net.Conn, error) {
	target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNetns, err)
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
			ch <- dialed{nil, fmt.Errorf("%w (pid %d): %v", ErrNetns, pid, err)}
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
