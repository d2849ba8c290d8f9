// Command handover rehearses the in-tree to out-of-tree cloud-controller
// migration (Leader Migration) on kind clusters built on this machine.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/clusters/host"
	"github.com/handover-sh/handover/clusters/host/capfilter"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/interrupt"
	_ "github.com/handover-sh/handover/providers/all" // every provider, with the managers its node images carry
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

func main() {
	// Installed under the wrapper's name, this binary is the OCI runtime
	// wrapper that `handover host prepare` registers with Docker.
	if filepath.Base(os.Args[0]) == host.WrapperName {
		if err := capfilter.Main(os.Args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	// The next run prunes what this process holds should a signal end it.
	ctx, h, stop := interrupt.Notify(context.Background(), os.Stderr, os.Exit, interrupt.WithLeftovers(cloudcluster.Held))
	stopProfile := startProfile()
	root, g := newRoot()
	err := execute(ctx, root, g)
	stopProfile()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ERROR:", err)
	}
	if code, interrupted := h.Interrupted(); interrupted {
		os.Exit(code)
	}
	os.Exit(int(exitcode.Of(err)))
}
