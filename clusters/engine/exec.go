package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// ExitError is a command in a container that ran and exited non-zero; its
// message reads like os/exec's ("exit status N").
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Exec is one command to run in a container, as `docker exec --privileged`
// runs it, through the engine's API: no docker process on this host.
type Exec struct {
	Container string
	Cmd       []string
	Env       []string
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
}

// Run runs the command and waits for it; a non-zero exit is an *ExitError.
func (x Exec) Run(ctx context.Context) error {
	cli, err := own()
	if err != nil {
		return err
	}
	created, err := cli.ContainerExecCreate(ctx, x.Container, container.ExecOptions{
		Privileged: true, Cmd: x.Cmd, Env: x.Env,
		AttachStdin: x.Stdin != nil, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return err
	}
	att, err := cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return err
	}
	defer att.Close()
	if x.Stdin != nil {
		go func() {
			_, _ = io.Copy(att.Conn, x.Stdin)
			_ = att.CloseWrite()
		}()
	}
	out, errOut := orDiscard(x.Stdout), orDiscard(x.Stderr)
	copied := make(chan error, 1)
	go func() { _, err := stdcopy.StdCopy(out, errOut, att.Reader); copied <- err }()
	select {
	case err = <-copied:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("reading the output of %v in %s: %w", x.Cmd, x.Container, err)
	}
	return exitOf(ctx, cli, created.ID)
}

// exitOf waits for the exec's exit code: the stream can end a moment
// before the engine records it.
func exitOf(ctx context.Context, cli *client.Client, id string) error {
	for try := 0; ; try++ {
		st, err := cli.ContainerExecInspect(ctx, id)
		if err != nil {
			return err
		}
		if !st.Running {
			if st.ExitCode != 0 {
				return &ExitError{Code: st.ExitCode}
			}
			return nil
		}
		if try > 100 {
			return fmt.Errorf("exec %s still running after its output ended", id)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
