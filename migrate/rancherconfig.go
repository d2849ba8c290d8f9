package migrate

import "strings"

// The Rancher configuration each RKE2 / RKE step stands for, so an operator
// can follow the plan on a real cluster.

func rke2MachineSelector(args []string, mounts []string) string {
	var b strings.Builder
	b.WriteString("spec:\n  rkeConfig:\n    machineSelectorConfig:\n      - config:\n          kube-controller-manager-arg:\n")
	for _, a := range args {
		b.WriteString("            - " + a + "\n")
	}
	if len(mounts) > 0 {
		b.WriteString("          kube-controller-manager-extra-mount:\n")
		for _, m := range mounts {
			b.WriteString("            - " + m + "\n")
		}
	}
	b.WriteString("        machineLabelSelector:\n          matchExpressions:\n            - key: rke.cattle.io/control-plane-role\n              operator: In\n              values:\n                - 'true'\n")
	return b.String()
}

func rke2Files(secret string) string {
	return "spec:\n  rkeConfig:\n    machineSelectorFiles:\n      - fileSources:\n          - secret:\n              name: " + secret +
		"\n              items:\n                - key: leadermigration.conf\n                  path: " + LMConfigPath +
		"\n        machineLabelSelector:\n          matchLabels:\n            rke.cattle.io/control-plane-role: 'true'\n"
}

func rke2CloudProvider(name string) string {
	return "spec:\n  rkeConfig:\n    machineGlobalConfig:\n      cloud-provider-name: " + name + "\n"
}

func rkeExtraArgs(args map[string]string, binds []string) string {
	var b strings.Builder
	b.WriteString("services:\n  kube-controller:\n    extra_args:\n")
	for _, k := range []string{"enable-leader-migration", "leader-migration-config"} {
		if v, ok := args[k]; ok {
			b.WriteString("      " + k + ": \"" + v + "\"\n")
		}
	}
	if len(binds) > 0 {
		b.WriteString("    extra_binds:\n")
		for _, m := range binds {
			b.WriteString("      - \"" + m + "\"\n")
		}
	}
	return b.String()
}

func rkeCloudProvider(flavour string) string {
	if flavour == "external-aws" {
		return "cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: true\n"
	}
	return "cloud_provider:\n  name: external\n"
}
