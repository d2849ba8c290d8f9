package simulated

import (
	"fmt"

	"github.com/handover-sh/handover/providers/profiles"
)

// simulatedProfiles: handover's own simulated cloud
// (simulate/cloudprovider), one per minor the node images build
// (clusters/nodeimage/versions.go). Its manager is upstream's
// k8s.io/cloud-provider app with the simulated provider and a node-IPAM
// controller of its own.
var simulatedProfiles = []profiles.Profile{
	simulated("1.26", "v1.26.13", true),
	simulated("1.27", "v1.27.4", true),
	simulated("1.28", "v1.28.15", true),
	simulated("1.29", "v1.29.15", true),
	simulated("1.30", "v1.30.14", true),
	simulated("1.31", "v1.31.4", false),
}

// simulated is one minor's profile; build is the Kubernetes release the
// node image builds, whose k8s.io/cloud-provider the manager is made of.
func simulated(minor, build string, inTree bool) profiles.Profile {
	cloudProvider := "k8s.io/cloud-provider@v0" + build[len("v1"):]
	canonical := profiles.AtLeast(minor, "1.28")
	versions := profiles.Source{Module: profiles.Here, File: "clusters/nodeimage/versions.go",
		Evidence: []string{fmt.Sprintf(`"%s":\s+\{[^\n]*Module: "kubernetes-v%s"`, build, minor)}}
	inTreeSource := versions
	inTreeSource.Evidence = []string{fmt.Sprintf(`"%s":\s+\{[^\n]*InTreeCloud: true`, build)}
	inTreeSource.Absent = !inTree
	upstreamApp := profiles.Source{Module: cloudProvider, File: "app/controllermanager.go",
		Evidence: []string{`leadermigration\.Enabled\(`, `filterFunc\(`}}
	main := profiles.Source{Module: profiles.Here, File: "clusters/nodeimage/modules/kubernetes-v" + minor + "/cloud-controller-manager/main.go",
		Evidence: []string{`ccmcontrollers\.Setup\("nodeipam"\)`, `ccmcontrollers\.Controllers\(ipam\)`, `app\.NewCloudControllerManagerCommand\(`}}
	controllers := []string{"cloud-node", "service", "route", "cloud-node-lifecycle", "nodeipam"}
	namesSource := profiles.Source{Module: cloudProvider, File: "app/controllermanager.go",
		Evidence: []string{`"cloud-node":\s+\{`, `"service":\s+\{`, `"route":\s+\{`, `"cloud-node-lifecycle":\s+\{`}}
	aliases := profiles.Fact[map[string]string]{Value: map[string]string{},
		From: []profiles.Source{{Module: profiles.Here, File: main.File, Evidence: []string{`NewCloudControllerManagerCommand\(opts, ccmcontrollers\.InitCloud, controllers, cliflag`}}}}
	ipam := "nodeipam"
	if canonical {
		ipam = "node-ipam-controller"
		controllers = []string{"cloud-node-controller", "service-lb-controller", "node-route-controller", "cloud-node-lifecycle-controller", ipam}
		main = profiles.Source{Module: profiles.Here, File: "simulate/cloudprovider/ccmmain/ccmmain.go",
			Evidence: []string{`ccmcontrollers\.Setup\(ccmcontrollers\.NodeIPAMController\)`, `ccmcontrollers\.Controllers\(ipam\)`, `aliases\["nodeipam"\] = ipam`, `app\.NewCloudControllerManagerCommand\(`}}
		namesSource = profiles.Source{Module: cloudProvider, File: "names/controller_names.go",
			Evidence: []string{`CloudNodeController\s+= "cloud-node-controller"`, `ServiceLBController\s+= "service-lb-controller"`,
				`NodeRouteController\s+= "node-route-controller"`, `CloudNodeLifecycleController\s+= "cloud-node-lifecycle-controller"`}}
		aliases = profiles.Fact[map[string]string]{
			Value: map[string]string{"cloud-node": "cloud-node-controller", "service": "service-lb-controller", "route": "node-route-controller",
				"cloud-node-lifecycle": "cloud-node-lifecycle-controller", "nodeipam": ipam},
			From: []profiles.Source{main, namesSource, {Module: cloudProvider, File: "names/controller_names.go", Evidence: []string{`"cloud-node":\s+CloudNodeController`, `"service":\s+ServiceLBController`,
				`"route":\s+NodeRouteController`, `"cloud-node-lifecycle":\s+CloudNodeLifecycleController`}}, ipamSource}}
	}
	return profiles.Profile{
		Provider: Name,
		Minor:    minor,
		Module:   profiles.Here,
		InTree:   profiles.Fact[bool]{Value: inTree, From: []profiles.Source{versions, inTreeSource}},
		CCM: profiles.CCM{
			Controllers:     profiles.Fact[[]string]{Value: controllers, From: []profiles.Source{main, namesSource, ipamSource}},
			Aliases:         aliases,
			LeaderMigration: profiles.Fact[bool]{Value: true, From: []profiles.Source{main, upstreamApp}},
			Disabled: profiles.Fact[[]string]{Value: []string{ipam}, From: []profiles.Source{main, ipamSource,
				{Module: profiles.Here, File: "simulate/cloudprovider/ccmcontrollers/ccmcontrollers.go", Evidence: []string{`app\.ControllersDisabledByDefault\.Insert\(ipamName\)`}}}},
			NodeIPAM: profiles.Fact[string]{Value: ipam, From: []profiles.Source{main, ipamSource}},
			NodeInit: profiles.Fact[string]{Value: "cloud-controller-manager (cloud-node controller)",
				From: []profiles.Source{{Module: profiles.Here, File: "simulate/cloudprovider/ccmcontrollers/ccmcontrollers.go", Evidence: []string{`range app\.DefaultInitFuncConstructors`}}}},
		},
		Naming: simulatedNaming,
	}
}

// ipamSource: the simulated manager's node IPAM, off by default.
var ipamSource = profiles.Source{Module: profiles.Here, File: "simulate/cloudprovider/ccmcontrollers/nodeipam.go", Evidence: []string{`NodeIPAMController = "node-ipam-controller"`}}

var simulatedNaming = profiles.Naming{
	ProviderID: profiles.Fact[string]{Value: "kind://docker/<cluster>/<node>",
		From: []profiles.Source{{Module: profiles.Here, File: "simulate/cloudprovider/behaviour/behaviour.go", Evidence: []string{`const kindProviderID = "kind://docker/<cluster>/<node>"`,
			`if form == "" \{\s+form = kindProviderID`}}}},
	Node: profiles.Fact[string]{Value: "the kubelet's hostname (the kind node container's name)",
		From: []profiles.Source{{Module: profiles.Here, File: "simulate/cloudprovider/provider/instances.go", Evidence: []string{`CurrentNodeName\(_ context\.Context, hostname string\) \(types\.NodeName, error\) \{\s+return types\.NodeName\(hostname\), nil`}}}},
	LoadBalancer: profiles.Fact[string]{Value: "<cluster>-a<Service UID without dashes, at most 32 characters>",
		From: []profiles.Source{
			{Module: profiles.Here, File: "simulate/cloudprovider/provider/loadbalancer.go", Evidence: []string{`c\.as\.LoadBalancerOf\(clusterName, cloudprovider\.DefaultLoadBalancerName\(svc\)\)`}},
			{Module: profiles.Here, File: "simulate/cloudprovider/behaviour/behaviour.go", Evidence: []string{`if form == "" \{\s+form = "<cluster>-<default>"`}}}},
}
