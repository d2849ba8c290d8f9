// Command handover-runc is the capability-filtering OCI runtime wrapper node
// images give containerd in place of runc (see package clusters/host/capfilter).
package main

import (
	"fmt"
	"os"

	"github.com/handover-sh/handover/clusters/host/capfilter"
)

func main() {
	if err := capfilter.Main(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
