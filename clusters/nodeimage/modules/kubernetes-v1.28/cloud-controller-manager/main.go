// Command cloud-controller-manager is the upstream out-of-tree manager with
// the simulated cloud's provider registered (see simulate/cloud/ccm).
package main

import (
	"os"

	"github.com/handover-sh/handover/simulate/cloud/ccm"
)

func main() { os.Exit(ccm.Main()) }
