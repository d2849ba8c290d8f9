// Command kwok is kwok's controller, built from the module proxy, with the
// node and pod stages kwokctl would give it (fast initialisation, heartbeats
// through leases, pods ready at once) passed as its configuration: the
// binary alone has no stages and refuses to start without them.
package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	heartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

var stages = []string{nodefast.DefaultNodeInit, heartbeat.DefaultNodeHeartbeatWithLease,
	podfast.DefaultPodReady, podfast.DefaultPodComplete, podfast.DefaultPodDelete}

func main() {
	dir, err := os.MkdirTemp("", "kwok-stages")
	if err != nil {
		fail(err)
	}
	path := filepath.Join(dir, "stages.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(stages, "\n---\n")), 0o644); err != nil {
		fail(err)
	}
	os.Args = append(os.Args, "--config="+path)

	flags := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flags.ParseErrorsAllowlist.UnknownFlags = true
	flags.Usage = func() {}
	ctx := signals.SetupSignalContext()
	ctx, logger := log.InitFlags(ctx, flags)
	if ctx, err = config.InitFlags(ctx, flags); err != nil {
		logger.Error("config flags", "err", err)
		os.Exit(1)
	}
	command := cmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flags)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("kwok", "err", err)
		os.Exit(1)
	}
}

func fail(err error) {
	_, _ = os.Stderr.WriteString("kwok: " + err.Error() + "\n")
	os.Exit(1)
}
