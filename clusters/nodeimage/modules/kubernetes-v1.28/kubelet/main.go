// Command kubelet is the upstream v1.28 kubelet with the simulated cloud's
// provider registered: with --cloud-provider=kind it sets its own
// ProviderID, addresses and zone, as in-tree kubelets do.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kubelet/app"

	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

func main() {
	provider.Register("kubelet")
	registerCredentials()
	os.Exit(cli.Run(app.NewKubeletCommand()))
}
