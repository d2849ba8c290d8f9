package kindcluster

import (
	"context"
	"io"

	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/clusters/engine"
)

// node is a kind node as the engine's container list describes it: its role
// and addresses come from that list, not from a `docker inspect` each, and
// only commands (actions) start a process.
type node struct{ c engine.Container }

func (n node) String() string              { return n.c.Name }
func (n node) Role() (string, error)       { return n.c.Labels[roleLabel], nil }
func (n node) IP() (string, string, error) { return n.c.IPv4, n.c.IPv6, nil }

func (n node) SerialLogs(w io.Writer) error {
	return kexec.Command("docker", "logs", n.c.Name).SetStdout(w).SetStderr(w).Run()
}

func (n node) Command(name string, args ...string) kexec.Cmd {
	return &nodeCmd{node: n.c.Name, name: name, args: args}
}

func (n node) CommandContext(ctx context.Context, name string, args ...string) kexec.Cmd {
	return &nodeCmd{node: n.c.Name, name: name, args: args, ctx: ctx}
}

// nodeCmd runs a command in a node as `docker exec --privileged` does, but
// through the engine's API: a docker CLI process costs this 2-core host
// about 80 ms of CPU, and a migration runs hundreds of commands in nodes.
type nodeCmd struct {
	node, name     string
	args, env      []string
	stdin          io.Reader
	stdout, stderr io.Writer
	ctx            context.Context
}

func (c *nodeCmd) Run() error {
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return engine.Exec{Container: c.node, Cmd: append([]string{c.name}, c.args...), Env: c.env,
		Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr}.Run(ctx)
}

func (c *nodeCmd) SetEnv(env ...string) kexec.Cmd  { c.env = env; return c }
func (c *nodeCmd) SetStdin(r io.Reader) kexec.Cmd  { c.stdin = r; return c }
func (c *nodeCmd) SetStdout(w io.Writer) kexec.Cmd { c.stdout = w; return c }
func (c *nodeCmd) SetStderr(w io.Writer) kexec.Cmd { c.stderr = w; return c }
