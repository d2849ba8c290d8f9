package profiles

import (
	"fmt"

	"github.com/handover-sh/handover/providers"
)

// simulatedProfiles: handover's own simulated cloud (simulate/cloud), one
// per minor the node images build (clusters/nodeimage/versions.go). Its
// manager is upstream's k8s.io/cloud-provider app with the simulated
// provider and a node-IPAM controller of its own.
var simulatedProfiles = []Profile{
	simulated("1.26", "v1.26.13", true),
	simulated("1.27", "v1.27.4", true),
	simulated("1.28", "v1.28.15", true),
	simulated("1.29", "v1.29.15", true),
	simulated("1.30", "v1.30.14", true),
	simulated("1.31", "v1.31.4", false),
}

// simulated is one minor's profile; build is the Kubernetes release the
// node image builds, whose k8s.io/cloud-provider the manager is made of.
func simulated(minor, build string, inTree bool) Profile {
	cloudProvider := "k8s.io/cloud-provider@v0" + build[len("v1"):]
	canonical := minorCompare(minor, "1.28") >= 0
	versions := Source{Module: here, File: "clusters/nodeimage/versions.go",
		Evidence: []string{fmt.Sprintf(`"%s":\s+\{[^\n]*Module: "kubernetes-v%s"`, build, minor)}}
	inTreeSource := versions
	inTreeSource.Evidence = []string{fmt.Sprintf(`"%s":\s+\{[^\n]*InTreeCloud: true`, build)}
	inTreeSource.Absent = !inTree
	upstreamApp := Source{Module: cloudProvider, File: "app/controllermanager.go",
		Evidence: []string{`leadermigration\.Enabled\(`, `filterFunc\(`}}
	main := Source{Module: here, File: "clusters/nodeimage/modules/kubernetes-v" + minor + "/cloud-controller-manager/main.go",
		Evidence: []string{`ccmbase\.Setup\("nodeipam"\)`, `ccmbase\.Controllers\(ipam\)`, `app\.NewCloudControllerManagerCommand\(`}}
	controllers := []string{"cloud-node", "service", "route", "cloud-node-lifecycle", "nodeipam"}
	namesSource := Source{Module: cloudProvider, File: "app/controllermanager.go",
		Evidence: []string{`"cloud-node":\s+\{`, `"service":\s+\{`, `"route":\s+\{`, `"cloud-node-lifecycle":\s+\{`}}
	aliases := Fact[map[string]string]{Value: map[string]string{},
		From: []Source{{Module: here, File: main.File, Evidence: []string{`NewCloudControllerManagerCommand\(opts, ccmbase\.InitCloud, controllers, cliflag`}}}}
	ipam := "nodeipam"
	if canonical {
		ipam = "node-ipam-controller"
		controllers = []string{"cloud-node-controller", "service-lb-controller", "node-route-controller", "cloud-node-lifecycle-controller", ipam}
		main = Source{Module: here, File: "simulate/cloud/ccm/ccm.go",
			Evidence: []string{`ccmbase\.Setup\(ccmbase\.NodeIPAMController\)`, `ccmbase\.Controllers\(ipam\)`, `aliases\["nodeipam"\] = ipam`, `app\.NewCloudControllerManagerCommand\(`}}
		namesSource = Source{Module: cloudProvider, File: "names/controller_names.go",
			Evidence: []string{`CloudNodeController\s+= "cloud-node-controller"`, `ServiceLBController\s+= "service-lb-controller"`,
				`NodeRouteController\s+= "node-route-controller"`, `CloudNodeLifecycleController\s+= "cloud-node-lifecycle-controller"`}}
		aliases = Fact[map[string]string]{
			Value: map[string]string{"cloud-node": "cloud-node-controller", "service": "service-lb-controller", "route": "node-route-controller",
				"cloud-node-lifecycle": "cloud-node-lifecycle-controller", "nodeipam": ipam},
			From: []Source{main, namesSource, {Module: cloudProvider, File: "names/controller_names.go", Evidence: []string{`"cloud-node":\s+CloudNodeController`, `"service":\s+ServiceLBController`,
				`"route":\s+NodeRouteController`, `"cloud-node-lifecycle":\s+CloudNodeLifecycleController`}}, ipamSource}}
	}
	return Profile{
		Provider: providers.Simulated,
		Minor:    minor,
		Module:   here,
		InTree:   Fact[bool]{Value: inTree, From: []Source{versions, inTreeSource}},
		CCM: CCM{
			Controllers:     Fact[[]string]{Value: controllers, From: []Source{main, namesSource, ipamSource}},
			Aliases:         aliases,
			LeaderMigration: Fact[bool]{Value: true, From: []Source{main, upstreamApp}},
			Disabled: Fact[[]string]{Value: []string{ipam}, From: []Source{main, ipamSource,
				{Module: here, File: "simulate/cloud/ccmbase/ccmbase.go", Evidence: []string{`app\.ControllersDisabledByDefault\.Insert\(ipamName\)`}}}},
			NodeIPAM: Fact[string]{Value: ipam, From: []Source{main, ipamSource}},
			NodeInit: Fact[string]{Value: "cloud-controller-manager (cloud-node controller)",
				From: []Source{{Module: here, File: "simulate/cloud/ccmbase/ccmbase.go", Evidence: []string{`range app\.DefaultInitFuncConstructors`}}}},
		},
		Naming: simulatedNaming,
	}
}

// ipamSource: the simulated manager's node IPAM, off by default.
var ipamSource = Source{Module: here, File: "simulate/cloud/ccmbase/nodeipam.go", Evidence: []string{`NodeIPAMController = "node-ipam-controller"`}}

var simulatedNaming = Naming{
	ProviderID: Fact[string]{Value: "kind://docker/<cluster>/<node>",
		From: []Source{{Module: here, File: "simulate/cloud/behaviour/behaviour.go", Evidence: []string{`const kindProviderID = "kind://docker/<cluster>/<node>"`,
			`if form == "" \{\s+form = kindProviderID`}}}},
	Node: Fact[string]{Value: "the kubelet's hostname (the kind node container's name)",
		From: []Source{{Module: here, File: "simulate/cloud/provider/instances.go", Evidence: []string{`CurrentNodeName\(_ context\.Context, hostname string\) \(types\.NodeName, error\) \{\s+return types\.NodeName\(hostname\), nil`}}}},
	LoadBalancer: Fact[string]{Value: "<cluster>-a<Service UID without dashes, at most 32 characters>",
		From: []Source{
			{Module: here, File: "simulate/cloud/provider/loadbalancer.go", Evidence: []string{`c\.as\.LoadBalancerOf\(clusterName, cloudprovider\.DefaultLoadBalancerName\(svc\)\)`}},
			{Module: here, File: "simulate/cloud/behaviour/behaviour.go", Evidence: []string{`if form == "" \{\s+form = "<cluster>-<default>"`}}}},
}
