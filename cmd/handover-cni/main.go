// Command handover-cni is the pod-network agent handover's node images run
// as a DaemonSet (see package clusters/cni).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/clusters/cni"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// cloudRoutes takes routes from the cloud's table: a route that the route
// controller has not created (or that was removed) carries no traffic. Only
// routes into the pod network are taken, whatever the table says, each
// through its target instance's address as the cloud lists it.
func cloudRoutes(ctx context.Context, client *api.Client, cluster, self string, podNetwork *net.IPNet) func([]*corev1.Node) ([]cni.Route, error) {
	client.Node = self
	return func(nodes []*corev1.Node) ([]cni.Route, error) {
		selfIPs := cni.NodeIPv4s(self, nodes)
		if len(selfIPs) == 0 {
			return nil, fmt.Errorf("node %s has no internal address yet", self)
		}
		table, err := client.Routes(ctx, "")
		if err != nil {
			return nil, err
		}
		instances, err := client.Instances(ctx, "")
		if err != nil {
			return nil, err
		}
		addr := map[string]net.IP{}
		// A route to an instance goes to its primary interface (a VPC
		// route's target), whose address the cloud lists first: a
		// further interface's network is not the one pods are routed on.
		for _, in := range instances {
			for _, a := range in.Addresses {
				if _, seen := addr[in.Name]; !seen && a.Type == string(corev1.NodeInternalIP) {
					addr[in.Name] = net.ParseIP(a.Address)
				}
			}
		}
		byCIDR := map[string]net.IP{}
		for _, r := range table {
			if strings.HasPrefix(r.Name, cluster+"-") && !r.Blackhole && inside(podNetwork, r.DestinationCIDR) {
				byCIDR[r.DestinationCIDR] = addr[r.TargetInstance]
			}
		}
		return cni.RoutesVia(selfIPs, byCIDR), nil
	}
}

func inside(network *net.IPNet, cidr string) bool {
	_, dst, err := net.ParseCIDR(cidr)
	if err != nil {
		return false
	}
	outer, _ := network.Mask.Size()
	inner, _ := dst.Mask.Size()
	return inner >= outer && network.Contains(dst.IP)
}

// cloudClient reads the cloud configuration (address and token).
func cloudClient(path string) (*api.Client, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg struct{ URL, Token string }
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := api.NewClient(cfg.URL, "handover-cni")
	c.Token = cfg.Token
	return c, nil
}

func main() {
	podNetwork := flag.String("pod-network", "10.244.0.0/16", "the cluster's pod CIDR")
	confDir := flag.String("conf-dir", "/etc/cni/net.d", "CNI configuration directory")
	routes := flag.Bool("routes", true, "program routes to other nodes' pod CIDRs")
	cloudConfig := flag.String("cloud-config", "", "simulated cloud configuration whose route table decides the routes (cloud route controller mode)")
	clusterName := flag.String("cluster-name", "", "cluster whose routes to take from the cloud")
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
	resync := 30 * time.Second
	if *cloudConfig != "" {
		cloud, err := cloudClient(*cloudConfig)
		if err != nil {
			log.Fatalf("--cloud-config: %v", err)
		}
		a.Routes = cloudRoutes(ctx, cloud, *clusterName, a.NodeName, network)
		resync = 2 * time.Second // the cloud's table has no watch: poll it
	}
	if err := a.Run(ctx, resync); err != nil {
		log.Fatal(err)
	}
}
