package main

import (
	"os"
	"runtime"

	"github.com/spf13/cobra"
)

// quietProcess marks the commands that run beside the cluster they measure
// for minutes (rehearse, migrate, observe, the simulated cloud's server).
// Their work is many small polls and requests that wait on the network;
// with one P the Go scheduler does not wake a second thread to steal each
// one. Measured on a default rehearsal: 5.1 % of one core during the
// procedure with two, 4.0 % with one.
var quietProcess = map[string]string{"handover/one-proc": "true"}

// quieten runs a quiet command on one P unless GOMAXPROCS says otherwise.
func quieten(c *cobra.Command) {
	if c.Annotations["handover/one-proc"] == "" {
		return
	}
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return
	}
	runtime.GOMAXPROCS(1)
}
