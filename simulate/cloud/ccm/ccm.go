// Package ccm is the main of handover's cloud-controller-manager builds: the
// upstream out-of-tree manager (k8s.io/cloud-provider/app) with the simulated
// cloud's provider registered. Each Kubernetes minor's build module has a
// three-line main that calls Main.
package ccm

import (
	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs/json/register" // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/klog/v2"

	"github.com/handover-sh/handover/simulate/cloud/provider"
)

// Main runs the cloud-controller-manager and returns its exit code.
func Main() int {
	provider.Register("cloud-controller-manager")
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("unable to initialize command options: %v", err)
	}
	controllers := map[string]app.ControllerInitFuncConstructor{NodeIPAMController: nodeIPAMConstructor()}
	for name, c := range app.DefaultInitFuncConstructors {
		controllers[name] = c
	}
	// Off unless asked for: kube-controller-manager runs node IPAM until a
	// migration moves it.
	app.ControllersDisabledByDefault.Insert(NodeIPAMController)
	aliases := names.CCMControllerAliases()
	aliases["nodeipam"] = NodeIPAMController
	command := app.NewCloudControllerManagerCommand(opts, initCloud, controllers, aliases, cliflag.NamedFlagSets{}, wait.NeverStop)
	return cli.Run(command)
}

func initCloud(c *config.CompletedConfig) cloudprovider.Interface {
	cc := c.ComponentConfig.KubeCloudShared.CloudProvider
	cloud, err := cloudprovider.InitCloudProvider(cc.Name, cc.CloudConfigFile)
	if err != nil {
		klog.Fatalf("cloud provider could not be initialized: %v", err)
	}
	if cloud == nil {
		klog.Fatalf("cloud provider %q is not registered (this build registers %q)", cc.Name, provider.Name)
	}
	return cloud
}
