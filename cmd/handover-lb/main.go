// Command handover-lb is the program in simcloud's load-balancer containers
// (see cloudserver.LBServer).
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver"
)

func main() {
	path := flag.String("config", cloudserver.LBConfigPath, "configuration file written by simcloud")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := &cloudserver.LBServer{Path: *path, Logf: log.Printf}
	s.Run(ctx, 500*time.Millisecond)
}
