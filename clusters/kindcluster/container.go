package kindcluster

import (
	"context"
	"errors"
	"io"

	kexec "sigs.k8s.io/kind/pkg/exec"
)

// donorNode is a container outside the cluster that commands can run in
// like a node (an image donor).
type donorNode string

func (d donorNode) String() string             { return string(d) }
func (d donorNode) Role() (string, error)      { return "image-donor", nil }
func (d donorNode) SerialLogs(io.Writer) error { return errors.New("no logs for an image donor") }
func (d donorNode) IP() (string, string, error) {
	return "", "", errors.New("an image donor has no network")
}
func (d donorNode) Command(name string, args ...string) kexec.Cmd {
	return &nodeCmd{node: string(d), name: name, args: args}
}
func (d donorNode) CommandContext(ctx context.Context, name string, args ...string) kexec.Cmd {
	return &nodeCmd{node: string(d), name: name, args: args, ctx: ctx}
}
