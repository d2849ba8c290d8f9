package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// quietProcess marks the commands that run beside the cluster they measure
// for minutes (rehearse, migrate, observe, the simulated cloud's server).
// Their work is many small polls and requests that wait on the network;
// with one P the Go scheduler does not wake a second thread to steal each
// one. Measured on a default rehearsal: 5.1 % of one core during the
// procedure with two, 4.0 % with one.
var quietProcess = map[string]string{"handover/one-proc": "true"}

// quietGOGC is the quiet commands' GC target: their live heap is tens of
// MiB and their garbage is the polls' short-lived buffers, so collecting
// at three times the live heap rather than twice halves the collector's
// work for a few tens of MiB more resident (a default rehearsal's CPU
// profile: mark workers 0.27 s → 0.14 s; 118 → 140 – 145 MiB at most).
const quietGOGC = 200

// quieten runs a quiet command on one P and with a higher GC target,
// unless GOMAXPROCS or GOGC say otherwise.
func quieten(c *cobra.Command) {
	if c.Annotations["handover/one-proc"] == "" {
		return
	}
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(quietGOGC)
	}
}
