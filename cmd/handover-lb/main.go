// Command handover-lb is the program in simcloud's load-balancer containers
// (see simcloud.LBServer).
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/handover-sh/handover/simulate/simcloud"
)

func main() {
	path := flag.String("config", simcloud.LBConfigPath, "configuration file written by simcloud")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := &simcloud.LBServer{Path: *path, Logf: log.Printf}
	s.Run(ctx, 500*time.Millisecond)
}
