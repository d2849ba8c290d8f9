// Command handover-cni is the pod-network agent handover's node images run
// as a DaemonSet (see package clusters/cni).
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/clusters/cni"
)

func main() {
	podNetwork := flag.String("pod-network", "10.244.0.0/16", "the cluster's pod CIDR")
	confDir := flag.String("conf-dir", "/etc/cni/net.d", "CNI configuration directory")
	routes := flag.Bool("routes", true, "program routes to other nodes' pod CIDRs (off when cloud routes do it)")
	flag.Parse()
	_, network, err := net.ParseCIDR(*podNetwork)
	if err != nil {
		log.Fatalf("--pod-network: %v", err)
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Fatalf("in-cluster config: %v", err)
	}
	// kind passes the control-plane endpoint so the agent does not depend on
	// kube-proxy having programmed the kubernetes Service yet.
	if ep := os.Getenv("CONTROL_PLANE_ENDPOINT"); ep != "" {
		cfg.Host = "https://" + ep
	}
	cfg.UserAgent = "handover-cni"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &cni.Agent{Client: client, NodeName: os.Getenv("NODE_NAME"), PodNetwork: network,
		ConfDir: *confDir, ManageRoutes: *routes, Logf: log.Printf}
	if a.NodeName == "" {
		log.Fatal("NODE_NAME is not set")
	}
	if err := a.Run(ctx, 30*time.Second); err != nil {
		log.Fatal(err)
	}
}
