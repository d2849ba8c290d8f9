// Package ccmcontrollers is what every Kubernetes minor's
// cloud-controller-manager build shares: the simulated cloud's provider, its
// node IPAM controller and the cloud initialiser. Each minor's main passes
// them to that minor's k8s.io/cloud-provider/app, whose command's signature
// changed in 1.28 (controller aliases).
package ccmcontrollers

import (
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/klog/v2"

	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

// Controllers registers the simulated provider and returns the upstream
// controllers plus the cloud's node IPAM controller under ipamName: the name
// the same minor's kube-controller-manager gives its own node IPAM
// controller ("nodeipam" before 1.28). It is off unless asked for:
// kube-controller-manager runs node IPAM until a migration moves it —
// except for a provider whose manager disables nothing by default (Setup
// read the profile).
func Controllers(ipamName string) map[string]app.ControllerInitFuncConstructor {
	provider.Register("cloud-controller-manager")
	controllers := map[string]app.ControllerInitFuncConstructor{ipamName: nodeIPAMConstructor()}
	for name, c := range app.DefaultInitFuncConstructors {
		controllers[name] = c
	}
	if !ipamOnByDefault {
		app.ControllersDisabledByDefault.Insert(ipamName)
	}
	return controllers
}

// InitCloud is the command's cloud initialiser: the simulated cloud, or a
// fatal error naming the provider this build registers.
func InitCloud(c *config.CompletedConfig) cloudprovider.Interface {
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
