// Command cloud-controller-manager is the upstream out-of-tree manager with
// the simulated cloud's provider registered (see
// simulate/cloudprovider/ccmmain).
package main

import (
	"os"

	"github.com/handover-sh/handover/simulate/cloudprovider/ccmmain"
)

func main() { os.Exit(ccmmain.Main()) }
