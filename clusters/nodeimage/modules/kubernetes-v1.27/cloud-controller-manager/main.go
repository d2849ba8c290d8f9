// Command cloud-controller-manager is the upstream out-of-tree manager with
// the simulated cloud's provider registered (see
// simulate/cloudprovider/ccmcontrollers). Before 1.28 the command takes no
// controller aliases and kube-controller-manager calls its node IPAM
// controller "nodeipam", so the cloud's takes that name.
package main

import (
	"os"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs/json/register" // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/klog/v2"

	"github.com/handover-sh/handover/simulate/cloudprovider/ccmcontrollers"
)

func main() {
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("unable to initialize command options: %v", err)
	}
	args, ipam := ccmcontrollers.Setup("nodeipam")
	controllers := ccmcontrollers.Controllers(ipam)
	command := app.NewCloudControllerManagerCommand(opts, ccmcontrollers.InitCloud, controllers, cliflag.NamedFlagSets{}, wait.NeverStop)
	command.SetArgs(args)
	os.Exit(cli.Run(command))
}
