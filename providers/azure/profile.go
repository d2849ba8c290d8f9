package azure

import (
	"strings"

	"github.com/handover-sh/handover/providers/profiles"
)

// azureProfiles: sigs.k8s.io/cloud-provider-azure and the in-tree azure
// provider, one per minor: the newest patch whose zip the module proxy
// serves (the listed v1.27.12–v1.27.21 and v1.28.10 are refused, so
// 1.27 is v1.27.11 and 1.28 v1.28.9), with the k8s.io/cloud-provider and
// k8s.io/controller-manager its go.mod requires (the module zip carries
// only vendor/modules.txt, so they are read from their own modules;
// controller-manager v0.26.15 is refused, so 1.26 reads v0.26.13) and the
// minor's k8s.io/legacy-cloud-providers ("" once it is no longer
// published).
//
// What holds for every minor: the CCM is the provider's own app package
// (no k8s.io/cloud-provider/app), starts every controller of
// newControllerInitializers under the one "cloud-controller-manager"
// lease, and accepts --enable-leader-migration only because it embeds the
// generic controller-manager options: nothing reads it. Nodes are
// initialised by cloud-node-manager, and the chart turns the CCM's
// cloud-node controller off.
var azureProfiles = []profiles.Profile{
	azureProfile("1.26", "v1.26.22", "v0.26.15", "v0.26.13", "v0.26.15"),
	azureProfile("1.27", "v1.27.11", "v0.27.7", "v0.27.7", "v0.27.16"),
	azureProfile("1.28", "v1.28.9", "v0.28.9", "v0.28.9", "v0.28.15"),
	azureProfile("1.29", "v1.29.4", "v0.29.4", "v0.29.4", "v0.29.15"),
	azureProfile("1.30", "v1.30.4", "v0.30.2", "v0.30.2", "v0.30.14"),
	azureProfile("1.31", "v1.31.0", "v0.31.0", "v0.31.0", ""),
	azureProfile("1.32", "v1.32.11", "v0.32.4", "v0.32.4", ""),
	azureProfile("1.33", "v1.33.6", "v0.33.4", "v0.33.4", ""),
	azureProfile("1.34", "v1.34.3", "v0.34.0", "v0.34.0", ""),
	azureProfile("1.35", "v1.35.3", "v0.35.0", "v0.35.0", ""),
	azureProfile("1.36", "v1.36.5", "v0.36.3", "v0.36.3", ""),
}

// Minors from which the code read below changes.
const (
	// legacy-cloud-providers no longer has azure/, and k8s.io/cloud-provider
	// no longer lists "azure" as a deprecated built-in provider. (In 1.29
	// the in-tree provider is still built in but kube-controller-manager's
	// DisableCloudProviders gate is beta and on by default.)
	azureOutOfTreeSince = "1.30"
	// newControllerInitializers keys controllers by the names constants
	// (cloud-node-controller, …) and the app passes
	// names.CCMControllerAliases, so the old short names are aliases.
	azureCanonicalSince = "1.28"
	// setLBDefaults makes an empty loadBalancerSku "standard" (the in-tree
	// provider and 1.26 leave it basic), and dual-stack Services get a
	// second frontend suffixed "-IPv6".
	azureStandardSKUSince = "1.27"
	// enableMultipleStandardLoadBalancers is gone; multiple standard LBs
	// are multipleStandardLoadBalancerConfigurations, named per entry.
	azureMultiSLBConfigSince = "1.28"
	// The cloud config struct moves to pkg/provider/config.
	azureConfigPkgSince = "1.32"
	// k8s.io/cloud-provider no longer lists deprecated built-in providers:
	// every one is disabled.
	azureBuiltinDisabledSince = "1.32"
	// The last k8s.io/legacy-cloud-providers release (its azure/ is
	// already gone).
	azureLegacyLast = "v0.30.14"
)

const (
	azureApp         = "cmd/cloud-controller-manager/app"
	azureAppMain     = "cmd/cloud-controller-manager/app/controllermanager.go"
	azureAppCore     = "cmd/cloud-controller-manager/app/core.go"
	azureAppOptions  = "cmd/cloud-controller-manager/app/options"
	azureAppOptsFile = "cmd/cloud-controller-manager/app/options/options.go"
	azureAppConfig   = "cmd/cloud-controller-manager/app/config"
	azureMain        = "cmd/cloud-controller-manager/controller-manager.go"
	azureNodeManager = "pkg/nodemanager/nodemanager.go"
	azureNodeOptions = "cmd/cloud-node-manager/app/options/options.go"
	azureChart       = "helm/cloud-provider-azure/templates/cloud-provider-azure.yaml"
	azureValues      = "helm/cloud-provider-azure/values.yaml"
	azureProvider    = "pkg/provider"
	azureConsts      = "pkg/consts/consts.go"
	azureLegacyPkg   = "azure"
)

// azureSeq joins regexp parts with \s+, for statements across lines.
func azureSeq(parts ...string) string { return strings.Join(parts, `\s+`) }

// azureProfile is one minor's profile: azure is the cloud-provider-azure
// release, cloudProvider and controllerManager the k8s.io modules it
// requires, legacy the minor's k8s.io/legacy-cloud-providers.
func azureProfile(minor, azure, cloudProvider, controllerManager, legacy string) profiles.Profile {
	upstream := "k8s.io/cloud-provider@" + cloudProvider
	generic := "k8s.io/controller-manager@" + controllerManager
	inTree := !profiles.AtLeast(minor, azureOutOfTreeSince)
	legacyMod := "k8s.io/legacy-cloud-providers@" + legacy
	if legacy == "" {
		legacyMod = "k8s.io/legacy-cloud-providers@" + azureLegacyLast
	}
	canonical := profiles.AtLeast(minor, azureCanonicalSince)
	controllers, aliases, names := azureControllers(canonical, upstream, generic)
	return profiles.Profile{
		Provider: Name,
		Minor:    minor,
		Module:   "sigs.k8s.io/cloud-provider-azure@" + azure,
		InTree:   profiles.Fact[bool]{Value: inTree, From: azureInTree(minor, upstream, legacyMod)},
		CCM: profiles.CCM{
			Controllers:     controllers,
			Aliases:         aliases,
			LeaderMigration: azureLeaderMigration(generic),
			// Nothing is off by default: node-ipam starts whenever
			// --allocate-node-cidrs is set.
			Disabled: profiles.Fact[[]string]{Value: nil, From: []profiles.Source{
				{File: azureAppMain, Evidence: []string{`var ControllersDisabledByDefault = sets\.NewString\(\)\n`}},
				{File: azureAppMain, Evidence: []string{`ControllersDisabledByDefault\.Insert`}, Absent: true}}},
			NodeIPAM: profiles.Fact[string]{Value: "node-ipam", From: []profiles.Source{
				{File: azureAppMain, Evidence: []string{`controllers\["node-ipam"\]\s*=\s*startNodeIpamController`}},
				{File: azureAppCore, Evidence: []string{`func startNodeIpamController\(`,
					`if !completedConfig\.ComponentConfig\.KubeCloudShared\.AllocateNodeCIDRs \{\s+return nil, false, nil`}}}},
			NodeInit: azureNodeInit(canonical, names),
		},
		Naming: profiles.Naming{
			ProviderID:   azureProviderID(inTree, legacyMod),
			Node:         azureNodeName(inTree, legacyMod),
			LoadBalancer: azureLoadBalancer(minor, inTree, upstream, legacyMod),
		},
	}
}

// azureControllers: the five controllers of newControllerInitializers
// (the anchored block proves there are no others), under the short names
// before 1.28 and the canonical ones, with the short names as aliases,
// from then; node-ipam keeps its literal key throughout. names is the
// names-constants source (empty before 1.28).
func azureControllers(canonical bool, upstream, generic string) (controllers profiles.Fact[[]string], aliases profiles.Fact[map[string]string], names profiles.Source) {
	started := `startControllers\(ctx,[^\n]*newControllerInitializers\(\),\s*h\)`
	init := func(keys ...string) string {
		return azureSeq(append(append([]string{`func newControllerInitializers\(\) map\[string\]initFunc \{`,
			`controllers := map\[string\]initFunc\{\}`}, keys...),
			`controllers\["node-ipam"\]\s*=\s*startNodeIpamController`, `return controllers`, `\}`)...)
	}
	if !canonical {
		noAlias := []string{`(?i)alias`}
		return profiles.Fact[[]string]{
				Value: []string{"cloud-node", "cloud-node-lifecycle", "service", "route", "node-ipam"},
				From: []profiles.Source{{File: azureAppMain, Evidence: []string{started, init(
					`controllers\["cloud-node"\]\s*=\s*startCloudNodeController`,
					`controllers\["cloud-node-lifecycle"\]\s*=\s*startCloudNodeLifecycleController`,
					`controllers\["service"\]\s*=\s*startServiceController`,
					`controllers\["route"\]\s*=\s*startRouteController`)}}}},
			profiles.Fact[map[string]string]{Value: map[string]string{}, From: []profiles.Source{
				{File: azureAppMain, Evidence: []string{`s\.Config\(KnownControllers\(\),\s*ControllersDisabledByDefault\.List\(\)\)`}},
				{File: azureApp, Evidence: noAlias, Absent: true},
				{File: azureAppOptions, Evidence: noAlias, Absent: true},
				{Module: generic, File: "options/generic.go", Evidence: noAlias, Absent: true}}},
			profiles.Source{}
	}
	names = profiles.Source{Module: upstream, File: "names/controller_names.go", Evidence: []string{
		`CloudNodeController\s+=\s+"cloud-node-controller"`, `ServiceLBController\s+=\s+"service-lb-controller"`,
		`NodeRouteController\s+=\s+"node-route-controller"`, `CloudNodeLifecycleController\s+=\s+"cloud-node-lifecycle-controller"`,
		azureSeq(`return map\[string\]string\{`, `"cloud-node":\s+CloudNodeController,`, `"service":\s+ServiceLBController,`,
			`"route":\s+NodeRouteController,`, `"cloud-node-lifecycle":\s+CloudNodeLifecycleController,`, `\}`)}}
	return profiles.Fact[[]string]{
			Value: []string{"cloud-node-controller", "cloud-node-lifecycle-controller", "service-lb-controller", "node-route-controller", "node-ipam"},
			From: []profiles.Source{{File: azureAppMain, Evidence: []string{started, init(
				`controllers\[names\.CloudNodeController\]\s*=\s*startCloudNodeController`,
				`controllers\[names\.CloudNodeLifecycleController\]\s*=\s*startCloudNodeLifecycleController`,
				`controllers\[names\.ServiceLBController\]\s*=\s*startServiceController`,
				`controllers\[names\.NodeRouteController\]\s*=\s*startRouteController`)}}, names}},
		profiles.Fact[map[string]string]{
			Value: map[string]string{"cloud-node": "cloud-node-controller", "service": "service-lb-controller",
				"route": "node-route-controller", "cloud-node-lifecycle": "cloud-node-lifecycle-controller"},
			From: []profiles.Source{
				{File: azureAppMain, Evidence: []string{`controllerAliases := names\.CCMControllerAliases\(\)`,
					`s\.Config\(KnownControllers\(\),\s*ControllersDisabledByDefault\.List\(\),\s*controllerAliases\)`}},
				{File: azureAppOptsFile, Evidence: []string{
					`o\.Generic\.AddFlags\(&fss,\s*allControllers,\s*disabledByDefaultControllers,\s*names\.CCMControllerAliases\(\)\)`}},
				{Module: generic, File: "options/generic.go", Evidence: []string{
					`if canonicalName, ok := controllerAliases\[controllerName\]; ok \{\s+controllerName = canonicalName`}},
				names}},
		names
}

// azureLeaderMigration: the flags exist (the generic options register
// them, and ApplyTo reads and validates the file, so a bad one stops the
// manager) but nothing in the CCM's app, its options or config mentions
// leader migration; main runs this app, which elects on one lease and
// starts every enabled controller when it leads.
func azureLeaderMigration(generic string) profiles.Fact[bool] {
	none := []string{`(?i)leader-?migrat`}
	return profiles.Fact[bool]{Value: false, From: []profiles.Source{
		{File: azureMain, Evidence: []string{`"sigs\.k8s\.io/cloud-provider-azure/cmd/cloud-controller-manager/app"`,
			`command := app\.NewCloudControllerManagerCommand\(\)`}},
		{File: azureMain, Evidence: []string{`"k8s\.io/cloud-provider/app"`}, Absent: true},
		{File: azureApp, Evidence: none, Absent: true},
		{File: azureAppOptions, Evidence: none, Absent: true},
		{File: azureAppConfig, Evidence: none, Absent: true},
		{Module: generic, File: "app", Evidence: none, Absent: true},
		{File: azureAppMain, Evidence: []string{
			`leaderelection\.RunOrDie\(context\.TODO\(\),\s*leaderelection\.LeaderElectionConfig\{\s+Lock:\s+rl,`,
			`OnStartedLeading:\s+RunWrapper\(s,\s*c,\s*healthHandler\),`,
			`Name:\s+"cloud-controller-manager",`,
			`if !genericcontrollermanager\.IsControllerEnabled\(controllerName, ControllersDisabledByDefault, completedConfig\.ComponentConfig\.Generic\.Controllers\) \{`}},
		{File: azureAppOptsFile, Evidence: []string{`cmoptions "k8s\.io/controller-manager/options"`,
			`Generic\s+\*cmoptions\.GenericControllerManagerConfigurationOptions`,
			`s\.Generic\.LeaderElection\.ResourceName = "cloud-controller-manager"`,
			`o\.Generic\.AddFlags\(&fss,`, `o\.Generic\.ApplyTo\(&c\.ComponentConfig\.Generic[,)]`}},
		{Module: generic, File: "options/generic.go", Evidence: []string{
			`o\.LeaderMigration\.AddFlags\(fss\.FlagSet\("leader-migration"\)\)`, `o\.LeaderMigration\.ApplyTo\(cfg\)`}},
		{Module: generic, File: "pkg/leadermigration/options/options.go", Evidence: []string{
			`fs\.BoolVar\(&o\.Enabled,\s*"enable-leader-migration"`,
			`fs\.StringVar\(&o\.ControllerMigrationConfig,\s*"leader-migration-config"`,
			`migrationconfig\.ReadLeaderMigrationConfiguration\(o\.ControllerMigrationConfig\)`,
			`migrationconfig\.ValidateLeaderMigrationConfiguration\(leaderMigrationConfig\)`}},
	}}
}

// azureNodeInit: cloud-node-manager, a DaemonSet on every node, sets the
// ProviderID and addresses and removes the uninitialized taint. The
// binary enables its own cloud-node controller by default, but the chart
// passes --controllers=*,-cloud-node ("cloud-node" is the key before
// 1.28 and an alias of cloud-node-controller from then).
func azureNodeInit(canonical bool, names profiles.Source) profiles.Fact[string] {
	from := []profiles.Source{
		{File: azureChart, Evidence: []string{`"--controllers=\*,-cloud-node"`,
			`\{\{-\s*if \.Values\.cloudNodeManager\.enabled\s*\}\}`,
			azureSeq(`kind:`, `DaemonSet`, `metadata:`, `name:`, `cloud-node-manager\s`),
			azureSeq(`command:`, `\["cloud-node-manager"\]`, `args:`, `-`, `--node-name=\$\(NODE_NAME\)`)}},
		{File: azureValues, Evidence: []string{azureSeq(`cloudNodeManager:`, `enabled:`, `true`)}},
		{File: "cmd/cloud-node-manager/app/nodemanager.go", Evidence: []string{`nodemanager\.NewCloudNodeController\(`}},
		{File: azureNodeManager, Evidence: []string{`n\.Spec\.ProviderID = providerID`,
			`err = cnc\.updateNodeAddress\(ctx, curNode\)`,
			`n\.Spec\.Taints = excludeCloudTaint\(n\.Spec\.Taints\)`,
			`taint\.Key == cloudproviderapi\.TaintExternalCloudProvider`}},
		{File: azureAppMain, Evidence: []string{`ControllersDisabledByDefault = sets\.NewString\(\)`}},
	}
	if canonical {
		from = append(from, names)
	}
	return profiles.Fact[string]{
		Value: "cloud-node-manager (DaemonSet on every node: sets spec.providerID and addresses, removes the uninitialized taint); " +
			"the CCM's cloud-node controller is on by default in the binary but the helm chart runs the CCM with --controllers=*,-cloud-node",
		From: from}
}

// azureInTree: until 1.29 legacy-cloud-providers registers "azure" and
// k8s.io/cloud-provider lists it as a deprecated built-in provider; from
// 1.30 neither has it (and no later legacy-cloud-providers is published),
// and from 1.32 every built-in provider is disabled.
func azureInTree(minor, upstream, legacyMod string) []profiles.Source {
	plugins := profiles.Source{Module: upstream, File: "plugins.go"}
	if !profiles.AtLeast(minor, azureOutOfTreeSince) {
		plugins.Evidence = []string{`\{"azure",\s+false,\s+"The Azure provider is deprecated`}
		return []profiles.Source{{Module: legacyMod, File: azureLegacyPkg + "/azure.go",
			Evidence: []string{`CloudProviderName\s*=\s*"azure"`, `cloudprovider\.RegisterCloudProvider\(CloudProviderName,\s*NewCloud\)`}}, plugins}
	}
	plugins.Evidence, plugins.Absent = []string{`\{"azure",`}, true
	from := []profiles.Source{{Module: legacyMod, File: azureLegacyPkg, Absent: true}, plugins}
	if profiles.AtLeast(minor, azureBuiltinDisabledSince) {
		from = append(from,
			profiles.Source{Module: upstream, File: "plugins.go", Evidence: []string{`built-in cloud providers are disabled`}},
			profiles.Source{Module: upstream, File: "plugins.go", Evidence: []string{`deprecatedCloudProviders`}, Absent: true})
	}
	return from
}

// azureProviderID: "azure://" and the VM's ARM ID with the resource group
// lowercased; the in-tree provider uses the same form.
func azureProviderID(inTree bool, legacyMod string) profiles.Fact[string] {
	nodeRE := `azureNodeProviderIDRE\s*=\s*regexp\.MustCompile\(.\^azure:///subscriptions/\(\?:\.\*\)/resourceGroups/\(\?:\.\*\)/providers/Microsoft\.Compute/`
	from := []profiles.Source{
		{File: "pkg/node/node.go", Evidence: []string{`return np\.azure\.ProviderName\(\) \+ "://" \+ instanceID, nil`}},
		{File: azureConsts, Evidence: []string{`CloudProviderName\s*=\s*"azure"`,
			`MachineIDTemplate\s*=\s*"/subscriptions/%s/resourceGroups/%s/providers/Microsoft\.Compute/virtualMachines/%s"`,
			`VmssMachineIDTemplate\s*=\s*"/subscriptions/%s/resourceGroups/%s/providers/Microsoft\.Compute/virtualMachineScaleSets/%s/virtualMachines/%s"`}},
		{File: azureProvider, Evidence: []string{nodeRE,
			`vmssVMResourceIDTemplate\s*=\s*./subscriptions/\(\?:\.\*\)/resourceGroups/\(\.\+\)/providers/Microsoft\.Compute/virtualMachineScaleSets/\(\.\+\)/virtualMachines/\(\?:\\d\+\).`,
			`vmssVMProviderIDRE\s*=\s*regexp\.MustCompile\(fmt\.Sprintf\("%s%s", "azure://", vmssVMResourceIDTemplate\)\)`,
			`strings\.Replace\(resourceID, resourceGroup, strings\.ToLower\(resourceGroup\), 1\)`}},
	}
	if inTree {
		from = append(from, profiles.Source{Module: legacyMod, File: azureLegacyPkg, Evidence: []string{nodeRE}})
	}
	return profiles.Fact[string]{
		Value: "azure:///subscriptions/<subscription>/resourceGroups/<group>/providers/Microsoft.Compute/virtualMachines/<vm> " +
			"(availability-set, standalone and VMSS Flex VMs); " +
			"azure:///subscriptions/<subscription>/resourceGroups/<group>/providers/Microsoft.Compute/virtualMachineScaleSets/<vmss>/virtualMachines/<instance-id> " +
			"(uniform VMSS); <group> lowercased",
		From: from}
}

// azureNodeName: the Node is the host's name; the provider maps it to the
// VM by name (availability sets) or by lowercased computer name (VMSS,
// VMSS Flex).
func azureNodeName(inTree bool, legacyMod string) profiles.Fact[string] {
	current := `func \(az \*Cloud\) CurrentNodeName\([^)]*hostname string\)\s*\(types\.NodeName, error\)\s*\{\s*return types\.NodeName\(hostname\), nil`
	computerName := `\*vm\.(?:OsProfile|Properties\.OSProfile)\.ComputerName`
	from := []profiles.Source{
		{File: azureProvider, Evidence: []string{current,
			`func mapNodeNameToVMName\(nodeName types\.NodeName\) string \{\s*return string\(nodeName\)`,
			`vmName := string\(nodeName\)\s+cachedVM, err := az\.vmCache\.Get\(`,
			`computerName := strings\.ToLower\(` + computerName + `\)`,
			`vmssFlexVMNameToNodeName\.Store\(\*vm\.Name, strings\.ToLower\(` + computerName + `\)\)`}},
		{File: azureNodeOptions, Evidence: []string{`"node-name"`, `c\.NodeName = strings\.ToLower\(hostname\)`}},
		{File: azureChart, Evidence: []string{`--node-name=\$\(NODE_NAME\)`}},
	}
	if inTree {
		from = append(from, profiles.Source{Module: legacyMod, File: azureLegacyPkg, Evidence: []string{current}})
	}
	return profiles.Fact[string]{
		Value: "the host's name (kubelet's hostname or --hostname-override; CurrentNodeName returns it unchanged; cloud-node-manager's --node-name, default the lowercased hostname): " +
			"the VM name for availability-set and standalone VMs, the lowercased osProfile.computerName for VMSS and VMSS Flex",
		From: from}
}

// azureLoadBalancer: one Azure LB per cluster (per VM set on basic SKU),
// a frontend IP configuration per Service named from its UID.
func azureLoadBalancer(minor string, inTree bool, upstream, legacyMod string) profiles.Fact[string] {
	standardSKU := profiles.AtLeast(minor, azureStandardSKUSince)
	multiConfig := profiles.AtLeast(minor, azureMultiSLBConfigSince)
	configDir := azureProvider
	if profiles.AtLeast(minor, azureConfigPkgSince) {
		configDir = azureProvider + "/config"
	}
	skuDefault := `if config\.LoadBalancerS[kK][uU] == "" \{\s+config\.LoadBalancerS[kK][uU] = consts\.LoadBalancerS[kK][uU]Standard`
	provider := []string{
		`func \(az \*Cloud\) GetLoadBalancerName\([^)]*service \*v1\.Service\) string \{\s+return cloudprovider\.DefaultLoadBalancerName\(service\)`,
		azureSeq(`if az\.LoadBalancerName != "" \{`, `clusterName = az\.LoadBalancerName`, `\}`, `lbNamePrefix := vmSetName`),
		`if strings\.EqualFold\(vmSetName, az\.VMSet\.GetPrimaryVMSetName\(\)\) \|\| (?:useSingleSLB|az\.[uU]seSingleStandardLoadBalancer\(\)) \{\s+lbNamePrefix = clusterName`,
		`return fmt\.Sprintf\("%s%s", lbNamePrefix, consts\.InternalLoadBalancerNameSuffix\)`,
		`baseName := az\.GetLoadBalancerName\(context\.TODO\(\), "", service\)`,
		`ipcName := fmt\.Sprintf\("%s-%s", baseName, \*subnetName\)`,
	}
	from := []profiles.Source{
		{File: azureConsts, Evidence: []string{`InternalLoadBalancerNameSuffix\s*=\s*"-internal"`, `FrontendIPConfigNameMaxLength\s*=\s*80`}},
		{File: azureAppCore, Evidence: []string{
			`servicecontroller\.New\((?:\s+[^,]+,){4}\s+completedConfig\.ComponentConfig\.KubeCloudShared\.ClusterName,`}},
		{Module: upstream, File: "cloud.go", Evidence: []string{
			azureSeq(`ret := "a" \+ string\(service\.UID\)`, `ret = strings\.Replace\(ret, "-", "", -1\)`), `ret = ret\[:32\]`}},
		{Module: upstream, File: "config/v1alpha1/defaults.go", Evidence: []string{`obj\.ClusterName = "kubernetes"`}},
		{Module: upstream, File: "options/kubecloudshared.go", Evidence: []string{`fs\.StringVar\(&o\.ClusterName, "cluster-name"`}},
	}
	value := `one Azure load balancer named by the cluster name (--cluster-name, default "kubernetes"; cloud config loadBalancerName overrides it), ` +
		`"<name>-internal" for internal Services; on basic SKU a VM set other than the primary gets its own LB named by the VM set; ` +
		`each Service is a frontend IP configuration named "a"+its UID without dashes, cut to 32 characters ("-<subnet>" appended for an internal subnet, cut to 80)`
	if !standardSKU {
		value += `; an empty loadBalancerSku is basic; enableMultipleStandardLoadBalancers gives non-primary VM sets not sharing the primary SLB their own LB named by the VM set`
		from = append(from, profiles.Source{File: azureProvider, Evidence: []string{skuDefault}, Absent: true})
		provider = append(provider, `EnableMultipleStandardLoadBalancers\s+bool`)
	} else {
		value += `; an empty loadBalancerSku is standard; "-IPv6" is appended to the IPv6 frontend of a dual-stack Service`
		provider = append(provider, `func getResourceByIPFamily\(resource string, isDualStack, isIPv6 bool\) string \{\s+if isDualStack && isIPv6 \{\s+return fmt\.Sprintf\("%s-%s", resource, (?:v6Suffix|consts\.IPVersionIPv6String)\)`,
			`getResourceByIPFamily\(defaultLBFrontendIPConfigName, isDualStack, consts\.IPVersionIPv6\)`)
		from = append(from, profiles.Source{File: azureProvider, Evidence: []string{skuDefault}})
		if multiConfig {
			from = append(from, profiles.Source{File: azureConsts, Evidence: []string{`IPVersionIPv6String\s+string\s*=\s*"IPv6"`}})
		} else {
			provider = append(provider, `v6Suffix\s*=\s*"IPv6"`, `EnableMultipleStandardLoadBalancers\s+bool`)
			value += `; enableMultipleStandardLoadBalancers gives non-primary VM sets not sharing the primary SLB their own LB named by the VM set`
		}
	}
	if multiConfig {
		value += `; with multipleStandardLoadBalancerConfigurations (enableMultipleStandardLoadBalancers is gone) a Service goes on the LB of an eligible configuration, named by that configuration`
		provider = append(provider, `lbNamePrefix = getMostEligibleLBForService\(`)
		from = append(from,
			profiles.Source{File: configDir, Evidence: []string{
				`[uU]seSingleStandardLoadBalancer\(\) bool \{\s+return az\.[uU]seStandardLoadBalancer\(\) && len\(az\.MultipleStandardLoadBalancerConfigurations\) == 0`}},
			profiles.Source{File: configDir, Evidence: []string{`json:"enableMultipleStandardLoadBalancers`}, Absent: true})
	}
	from = append(from, profiles.Source{File: azureProvider, Evidence: provider})
	if inTree {
		value += `; the in-tree provider names them the same (single stack), with basic as the empty loadBalancerSku`
		from = append(from,
			profiles.Source{Module: legacyMod, File: azureLegacyPkg, Evidence: []string{
				`return cloudprovider\.DefaultLoadBalancerName\(service\)`,
				azureSeq(`if az\.LoadBalancerName != "" \{`, `clusterName = az\.LoadBalancerName`),
				`InternalLoadBalancerNameSuffix\s*=\s*"-internal"`,
				`baseName := az\.GetLoadBalancerName\(context\.TODO\(\), "", service\)`}},
			profiles.Source{Module: legacyMod, File: azureLegacyPkg, Evidence: []string{`config\.LoadBalancerSku = `}, Absent: true})
	}
	return profiles.Fact[string]{Value: value, From: from}
}
