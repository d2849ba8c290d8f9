// Command kube-controller-manager is the upstream v1.27 manager with the
// simulated cloud's provider registered: with --cloud-provider=kind it runs
// the real in-tree cloud loops (as every minor up to v1.30).
package main

import (
	"os"
	_ "time/tzdata" // for CronJob time zones, as upstream

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"

	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

func main() {
	provider.Register("kube-controller-manager")
	os.Exit(cli.Run(app.NewControllerManagerCommand()))
}
