package aws

import "github.com/handover-sh/handover/providers/profiles"

// awsProfiles: k8s.io/cloud-provider-aws and the in-tree aws provider, one
// per minor the module proxy serves a release of: the newest patch whose
// zip it serves (v1.29.7 and v1.29.8 are listed but refused, so 1.29 is
// v1.29.6), with the k8s.io/cloud-provider its go.mod requires and the
// k8s.io/legacy-cloud-providers release of the minor ("" once that module
// is no longer published).
var awsProfiles = []profiles.Profile{
	awsProfile("1.26", "v1.26.1", "v0.26.0", "v0.26.15"),
	awsProfile("1.27", "v1.27.2", "v0.27.0", "v0.27.16"),
	awsProfile("1.28", "v1.28.3", "v0.28.3", "v0.28.15"),
	awsProfile("1.29", "v1.29.6", "v0.29.5", "v0.29.15"),
	awsProfile("1.30", "v1.30.9", "v0.30.1", "v0.30.14"),
	awsProfile("1.31", "v1.31.7", "v0.31.0", ""),
	awsProfile("1.32", "v1.32.2", "v0.32.0", ""),
	awsProfile("1.33", "v1.33.4", "v0.33.0", ""),
	awsProfile("1.34", "v1.34.4", "v0.34.0", ""),
	awsProfile("1.35", "v1.35.3", "v0.35.0", ""),
	awsProfile("1.36", "v1.36.2", "v0.36.0", ""),
	awsProfile("1.37", "v1.37.1", "v0.37.0", ""),
}

// Minors from which the code read below changes.
const (
	// The in-tree aws provider is gone from legacy-cloud-providers.
	awsOutOfTreeSince = "1.27"
	// k8s.io/cloud-provider names its controllers canonically, and main
	// passes names.CCMControllerAliases.
	awsCanonicalSince = "1.28"
	// Cloud.InstancesV2 returns the provider: ProviderIDs come from its
	// InstanceMetadata rather than upstream's GetInstanceProviderID.
	awsInstancesV2Since = "1.30"
	// k8s.io/cloud-provider no longer lists deprecated built-in providers:
	// every one is disabled.
	awsBuiltinDisabledSince = "1.32"
	// The last k8s.io/legacy-cloud-providers release: its last minor is
	// 1.30 (the in-tree providers are removed in 1.31).
	awsLegacyLast = "v0.30.14"
)

const (
	awsMain    = "cmd/aws-cloud-controller-manager/main.go"
	awsV1      = "pkg/providers/v1"
	awsV1Go    = "pkg/providers/v1/aws.go"
	awsTagging = "pkg/controllers/tagging/tagging_controller_wrapper.go"
	// The in-tree provider's package in legacy-cloud-providers.
	awsLegacyPkg = "aws"
)

// awsProfile is one minor's profile: aws is the cloud-provider-aws
// release, cloudProvider the k8s.io/cloud-provider version it requires,
// legacy the minor's k8s.io/legacy-cloud-providers.
func awsProfile(minor, aws, cloudProvider, legacy string) profiles.Profile {
	upstream := "k8s.io/cloud-provider@" + cloudProvider
	inTree := !profiles.AtLeast(minor, awsOutOfTreeSince)
	legacyMod := "k8s.io/legacy-cloud-providers@" + legacy
	if legacy == "" {
		legacyMod = "k8s.io/legacy-cloud-providers@" + awsLegacyLast
	}
	app := func(evidence ...string) profiles.Source {
		return profiles.Source{Module: upstream, File: "app/controllermanager.go", Evidence: evidence}
	}
	controllers, aliases, cloudNode := awsControllers(profiles.AtLeast(minor, awsCanonicalSince), upstream)
	return profiles.Profile{
		Provider: Name,
		Minor:    minor,
		Module:   "k8s.io/cloud-provider-aws@" + aws,
		InTree:   profiles.Fact[bool]{Value: inTree, From: awsInTree(minor, upstream, legacyMod)},
		CCM: profiles.CCM{
			Controllers: controllers,
			Aliases:     aliases,
			LeaderMigration: profiles.Fact[bool]{Value: true, From: []profiles.Source{
				{File: awsMain, Evidence: []string{`app\.NewCloudControllerManagerCommand\(opts,\s+cloudInitializer,\s+controllerInitializers,`}},
				app(`leadermigration\.Enabled\(&c\.ComponentConfig\.Generic\)`,
					`filterInitializers\(controllerInitializers,\s+leaderMigrator\.FilterFunc,\s+leadermigration\.ControllerNonMigrated\)`,
					`filterInitializers\(controllerInitializers,\s+leaderMigrator\.FilterFunc,\s+leadermigration\.ControllerMigrated\)`,
					`if\s+filterFunc\(name\)\s+==\s+expected`)}},
			Disabled: profiles.Fact[[]string]{Value: []string{"tagging"}, From: []profiles.Source{
				{File: awsMain, Evidence: []string{`app\.ControllersDisabledByDefault\.Insert\(tagging\.TaggingControllerKey\)`}},
				{File: awsTagging, Evidence: []string{`TaggingControllerKey\s+=\s+"tagging"`}}}},
			NodeIPAM: profiles.Fact[string]{Value: "", From: []profiles.Source{
				{File: awsMain, Evidence: []string{`(?i)ipam`}, Absent: true},
				{Module: upstream, File: "app/controllermanager.go", Evidence: []string{`(?i)ipam`}, Absent: true}}},
			NodeInit: profiles.Fact[string]{Value: "cloud-controller-manager (cloud-node controller)", From: []profiles.Source{
				app(cloudNode),
				{File: awsMain, Evidence: []string{`controllerInitializers\s+:=\s+app\.DefaultInitFuncConstructors`}},
				{Module: upstream, File: "controllers/node/node_controller.go",
					Evidence: []string{`taint\.Key\s+==\s+cloudproviderapi\.TaintExternalCloudProvider`}}}},
		},
		Naming: profiles.Naming{
			ProviderID:   awsProviderID(minor, upstream, legacyMod),
			Node:         awsNodeName(minor, legacyMod),
			LoadBalancer: awsLoadBalancer(inTree, upstream, legacyMod),
		},
	}
}

// awsControllers: upstream's four controllers, under the short names
// before 1.28 and the canonical ones (with the short names as aliases)
// from then, and the tagging controller main adds, disabled by default.
// cloudNode is the evidence of the cloud-node controller's registration.
func awsControllers(canonical bool, upstream string) (controllers profiles.Fact[[]string], aliases profiles.Fact[map[string]string], cloudNode string) {
	app := profiles.Source{Module: upstream, File: "app/controllermanager.go"}
	names := profiles.Source{Module: upstream, File: "names/controller_names.go", Evidence: []string{
		`CloudNodeController\s+=\s+"cloud-node-controller"`, `ServiceLBController\s+=\s+"service-lb-controller"`,
		`NodeRouteController\s+=\s+"node-route-controller"`, `CloudNodeLifecycleController\s+=\s+"cloud-node-lifecycle-controller"`}}
	from := []profiles.Source{
		{File: awsMain, Evidence: []string{`controllerInitializers\s+:=\s+app\.DefaultInitFuncConstructors`,
			`controllerInitializers\[tagging\.TaggingControllerKey\]\s+=\s+taggingControllerConstructor`,
			`app\.ControllersDisabledByDefault\.Insert\(tagging\.TaggingControllerKey\)`}},
		{File: awsTagging, Evidence: []string{`TaggingControllerKey\s+=\s+"tagging"`}},
	}
	cloudNode = `\s+\{\s+InitContext:\s+ControllerInitContext\{\s+ClientName:\s+"node-controller",\s+\},\s+Constructor:\s+StartCloudNodeControllerWrapper`
	if !canonical {
		app.Evidence = []string{`"cloud-node":\s+\{`, `"service":\s+\{`, `"route":\s+\{`, `"cloud-node-lifecycle":\s+\{`}
		return profiles.Fact[[]string]{
				Value: []string{"cloud-node", "service", "route", "cloud-node-lifecycle", "tagging"},
				From:  append(from, app)},
			profiles.Fact[map[string]string]{Value: map[string]string{}, From: []profiles.Source{
				{Module: upstream, File: app.File, Evidence: []string{`(?i)alias`}, Absent: true},
				{File: awsMain, Evidence: []string{`(?i)alias`}, Absent: true}}},
			`"cloud-node":` + cloudNode
	}
	app.Evidence = []string{`names\.CloudNodeController:\s+\{`, `names\.ServiceLBController:\s+\{`,
		`names\.NodeRouteController:\s+\{`, `names\.CloudNodeLifecycleController:\s+\{`}
	shortNames := names
	shortNames.Evidence = []string{`"cloud-node":\s+CloudNodeController,`, `"service":\s+ServiceLBController,`,
		`"route":\s+NodeRouteController,`, `"cloud-node-lifecycle":\s+CloudNodeLifecycleController,`}
	return profiles.Fact[[]string]{
			Value: []string{"cloud-node-controller", "service-lb-controller", "node-route-controller", "cloud-node-lifecycle-controller", "tagging"},
			From:  append(from, app, names)},
		profiles.Fact[map[string]string]{
			Value: map[string]string{"cloud-node": "cloud-node-controller", "service": "service-lb-controller",
				"route": "node-route-controller", "cloud-node-lifecycle": "cloud-node-lifecycle-controller"},
			// main's one addition maps "tagging" to itself: no other name.
			From: []profiles.Source{{File: awsMain, Evidence: []string{`controllerAliases\s+:=\s+names\.CCMControllerAliases\(\)`,
				`controllerAliases\[tagging\.TaggingControllerKey\]\s+=\s+tagging\.TaggingControllerKey\s`}},
				shortNames, names}},
		`names\.CloudNodeController:` + cloudNode
}

// awsInTree: in 1.26 legacy-cloud-providers still registers "aws" and
// k8s.io/cloud-provider lists it as a deprecated built-in provider; from
// 1.27 neither has it, and from 1.32 every built-in provider is disabled.
func awsInTree(minor, upstream, legacyMod string) []profiles.Source {
	plugins := profiles.Source{Module: upstream, File: "plugins.go"}
	if !profiles.AtLeast(minor, awsOutOfTreeSince) {
		plugins.Evidence = []string{`\{"aws",\s+false,\s+"The AWS provider is deprecated`}
		return []profiles.Source{{Module: legacyMod, File: awsLegacyPkg + "/aws.go",
			Evidence: []string{`const ProviderName = "aws"`, `cloudprovider\.RegisterCloudProvider\(ProviderName,`}}, plugins}
	}
	plugins.Evidence, plugins.Absent = []string{`\{"aws",`}, true
	out := []profiles.Source{{Module: legacyMod, File: awsLegacyPkg, Absent: true}, plugins}
	if profiles.AtLeast(minor, awsBuiltinDisabledSince) {
		out = append(out, profiles.Source{Module: upstream, File: "plugins.go",
			Evidence: []string{`but built-in cloud providers are disabled`}})
	}
	return out
}

// awsInstanceID is the ID the provider gives upstream for an instance:
// "/<zone>/<instance-id>".
var awsInstanceID = []string{
	`const ProviderName = "aws"`,
	`return\s+"/"\s+\+\s+aws\.(?:StringValue|ToString)\(inst\.Placement\.AvailabilityZone\)\s+\+\s+"/"\s+\+\s+aws\.(?:StringValue|ToString)\(inst\.InstanceId\)`,
}

// awsProviderID: before 1.30 InstancesV2 is not implemented, so the
// cloud-node controller (like the in-tree kubelet) asks upstream's
// GetInstanceProviderID for "aws://" + InstanceID; from 1.30 the
// provider's InstanceMetadata builds the same string itself.
func awsProviderID(minor, upstream, legacyMod string) profiles.Fact[string] {
	from := []profiles.Source{{File: awsV1Go, Evidence: awsInstanceID}}
	if !profiles.AtLeast(minor, awsInstancesV2Since) {
		from = append(from,
			profiles.Source{File: awsV1Go, Evidence: []string{`InstancesV2\(\)\s+\(cloudprovider\.InstancesV2,\s+bool\)\s+\{\s+return\s+nil,\s+false`}},
			profiles.Source{Module: upstream, File: "cloud.go", Evidence: []string{`return\s+cloud\.ProviderName\(\)\s+\+\s+"://"\s+\+\s+instanceID`}},
			profiles.Source{Module: upstream, File: "controllers/node/node_controller.go", Evidence: []string{`cloudprovider\.GetInstanceProviderID\(ctx,\s+cnc\.cloud,`}})
	} else {
		from = append(from,
			profiles.Source{File: awsV1Go, Evidence: []string{`InstancesV2\(\)\s+\(cloudprovider\.InstancesV2,\s+bool\)\s+\{\s+return\s+c,\s+true`}},
			profiles.Source{File: awsV1 + "/instances_v2.go", Evidence: []string{`return\s+c\.ProviderName\(\)\s+\+\s+"://"\s+\+\s+instanceID`, `ProviderID:\s+providerID,`}})
	}
	if !profiles.AtLeast(minor, awsOutOfTreeSince) {
		from = append(from, profiles.Source{Module: legacyMod, File: awsLegacyPkg + "/aws.go", Evidence: awsInstanceID})
	}
	return profiles.Fact[string]{Value: "aws:///<availability-zone>/<instance-id>", From: from}
}

// awsNodeName: the external provider does not name Nodes (kubelet
// registers its own name); it finds a name's instance, and resource-based
// names ("i-…") are the instance ID itself.
func awsNodeName(minor, legacyMod string) profiles.Fact[string] {
	lookup := []string{
		`rbnNamePrefix\s+=\s+"i-"`,
		`if\s+strings\.HasPrefix\(string\(nodeName\),\s+rbnNamePrefix\)`,
		`c\.nodeInformer\.Lister\(\)\.Get\(string\(nodeName\)\)`,
		`return\s+KubernetesInstanceID\(node\.Spec\.ProviderID\)\.MapToAWSInstanceID\(\)`,
		`fall back to findInstanceByNodeName`,
		`newEc2Filter\("private-dns-name",\s+privateDNSName\)`,
	}
	dot := `strings\.IndexByte\(string\(nodeName\),\s+'\.'\)`
	if profiles.AtLeast(minor, awsOutOfTreeSince) {
		return profiles.Fact[string]{
			Value: `kubelet's own name (hostname or --hostname-override); cloud-provider-aws maps a name to its instance: one starting "i-" (resource-based name) is the instance ID up to the first ".", any other goes through the Node's spec.providerID, else the EC2 private-dns-name filter`,
			From:  []profiles.Source{{File: awsV1, Evidence: append(lookup, dot)}}}
	}
	return profiles.Fact[string]{
		Value: `in-tree kubelet: the instance's EC2 private DNS name (CurrentNodeName); with cloud-provider-aws, kubelet's own name, which it maps to its instance: one starting "i-" (resource-based name) is the instance ID (the whole name), any other goes through the Node's spec.providerID, else the EC2 private-dns-name filter`,
		From: []profiles.Source{
			{Module: legacyMod, File: awsLegacyPkg, Evidence: []string{
				`CurrentNodeName\(ctx\s+context\.Context,\s+hostname\s+string\)\s+\(types\.NodeName,\s+error\)\s+\{\s+return\s+c\.selfAWSInstance\.nodeName,\s+nil`,
				`nodeName:\s+mapInstanceToNodeName\(instance\)`,
				`return\s+types\.NodeName\(aws\.StringValue\(i\.PrivateDnsName\)\)`}},
			{Module: legacyMod, File: awsLegacyPkg, Evidence: []string{`rbnNamePrefix`}, Absent: true},
			{File: awsV1, Evidence: lookup},
			{File: awsV1, Evidence: []string{dot}, Absent: true},
		}}
}

// awsLoadBalancer: classic ELB and NLB alike are named by upstream's
// DefaultLoadBalancerName and tagged as the cluster's and the Service's.
func awsLoadBalancer(inTree bool, upstream, legacyMod string) profiles.Fact[string] {
	provider := func(module, dir string) []profiles.Source {
		return []profiles.Source{
			{Module: module, File: dir + "/aws.go", Evidence: []string{
				`func\s+\(c\s+\*Cloud\)\s+GetLoadBalancerName\([^)]*\)\s+string\s+\{\s+(?://[^\n]*\s+)*return\s+cloudprovider\.DefaultLoadBalancerName\(service\)`,
				`ServiceAnnotationLoadBalancerType\s+=\s+"service\.beta\.kubernetes\.io/aws-load-balancer-type"`,
				`TagNameKubernetesService\s+=\s+"kubernetes\.io/service-name"`}},
			{Module: module, File: dir + "/aws_loadbalancer.go", Evidence: []string{
				`annotations\[ServiceAnnotationLoadBalancerType\]\s+==\s+"nlb"`,
				`Type:\s+(?:aws\.String\(elbv2\.LoadBalancerTypeEnumNetwork\)|elbv2types\.LoadBalancerTypeEnumNetwork),\s+Name:\s+aws\.String\(loadBalancerName\)`,
				`createRequest\.LoadBalancerName\s+=\s+aws\.String\(loadBalancerName\)`,
				`tags\[TagNameKubernetesService\]\s+=\s+namespacedName\.String\(\)\s+tags\s+=\s+c\.tagging\.buildTags\(ResourceLifecycleOwned,\s+tags\)`,
				`return\s+fmt\.Sprintf\("k8s-%\.8s-%\.8s-%\.10s",\s+sanitizedNamespace,\s+sanitizedServiceName,\s+tgUUID\)`}},
			{Module: module, File: dir + "/tags.go", Evidence: []string{
				`TagNameKubernetesClusterPrefix\s+=\s+"kubernetes\.io/cluster/"`,
				`return\s+TagNameKubernetesClusterPrefix\s+\+\s+t\.ClusterID`,
				`tags\[t\.clusterTagKey\(\)\]\s+=\s+string\(lifecycle\)`,
				`ResourceLifecycleOwned\s+=\s+"owned"`}},
		}
	}
	from := append(provider("", awsV1),
		profiles.Source{Module: upstream, File: "cloud.go", Evidence: []string{
			`ret\s+:=\s+"a"\s+\+\s+string\(service\.UID\)`,
			`ret\s+=\s+strings\.Replace\(ret,\s+"-",\s+"",\s+-1\)`,
			`if\s+len\(ret\)\s+>\s+32\s+\{\s+ret\s+=\s+ret\[:32\]`}})
	if inTree {
		from = append(from, provider(legacyMod, awsLegacyPkg)...)
	}
	return profiles.Fact[string]{
		Value: `classic ELB: "a" + the Service UID without dashes, at most 32 characters (cloudprovider.DefaultLoadBalancerName); ` +
			`an NLB (service.beta.kubernetes.io/aws-load-balancer-type: nlb) has the same name, its target groups k8s-<namespace:8>-<name:8>-<hash:10>; ` +
			`both tagged kubernetes.io/cluster/<cluster-id>=owned and kubernetes.io/service-name=<namespace>/<name>`,
		From: from}
}
