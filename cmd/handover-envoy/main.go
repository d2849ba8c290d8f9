// Command handover-envoy is installed as `envoy` in the image kind runs for
// its control-plane load balancer. It accepts `envoy -c BOOTSTRAP` and serves
// the listener and cluster files kind writes, re-reading them as they change.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/handover-sh/handover/clusters/apilb"
)

func main() {
	config := flag.String("c", "/home/envoy/envoy.yaml", "Envoy bootstrap file naming the CDS and LDS files")
	flag.Parse()
	raw, err := os.ReadFile(*config)
	if err != nil {
		log.Fatalf("reading bootstrap: %v", err)
	}
	boot, err := apilb.ParseBootstrap(raw)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := &apilb.Server{Bootstrap: boot, Logf: log.Printf}
	if err := s.Run(ctx, 500*time.Millisecond); err != nil {
		log.Fatal(err)
	}
}
