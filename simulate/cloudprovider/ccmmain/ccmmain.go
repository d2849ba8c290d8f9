// Package ccmmain is the main of handover's cloud-controller-manager builds
// from Kubernetes 1.28 on: the upstream out-of-tree manager
// (k8s.io/cloud-provider/app) with the simulated cloud's provider and node
// IPAM controller (simulate/cloudprovider/ccmcontrollers). Each of those
// minors' build module has a three-line main that calls Main; older minors
// call ccmcontrollers from their own main.
package ccmmain

import (
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs/json/register" // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/klog/v2"

	"github.com/handover-sh/handover/simulate/cloudprovider/ccmcontrollers"
)

// Main runs the cloud-controller-manager and returns its exit code.
func Main() int {
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("unable to initialize command options: %v", err)
	}
	args, ipam := ccmcontrollers.Setup(ccmcontrollers.NodeIPAMController)
	controllers := ccmcontrollers.Controllers(ipam)
	aliases := names.CCMControllerAliases()
	aliases["nodeipam"] = ipam
	command := app.NewCloudControllerManagerCommand(opts, ccmcontrollers.InitCloud, controllers, aliases, cliflag.NamedFlagSets{}, wait.NeverStop)
	command.SetArgs(args)
	return cli.Run(command)
}
