package aws

import (
	"fmt"
	"slices"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/aws/awsconfig"
)

// The aws provider's code reads a user's cloud-config, each release as
// awsconfig reads it: the lint judges a file by it, and a rehearsal
// carries what the simulated cloud can run with.
var _ providers.CloudConfigs = Provider{}

// CloudConfigCodes are the releases whose reader awsconfig holds.
func (Provider) CloudConfigCodes() []string { return awsconfig.Codes() }

// CheckCloudConfig: a side's cloud-config must be one its release reads,
// as the manager reads it when it starts (unknown variables, values of
// the wrong type and malformed sections are refused there).
func (Provider) CheckCloudConfig(in providers.CloudConfigInput) []providers.ConfigFinding {
	where := in.Path + " (" + in.Reader + ")"
	f, err := awsconfig.Read(in.Code, in.Text)
	if err != nil {
		return []providers.ConfigFinding{{Error: true, Where: where,
			What: fmt.Sprintf("%s refuses it, and the %s does not start: %v", in.Code, in.Reader, err),
			Fix:  fmt.Sprintf("write only the variables %s reads ([Global]: %v)", in.Code, awsconfig.Fields(in.Code))}}
	}
	if _, ok := awsconfig.ClusterID(f); !ok {
		return []providers.ConfigFinding{{Error: true, Where: where + ": [Global] KubernetesClusterTag, KubernetesClusterID",
			What: fmt.Sprintf("they differ (%q, %q): %s refuses to start (\"clusterID tags did not match\", tags.go)", f.Global["KubernetesClusterTag"], f.Global["KubernetesClusterID"], in.Reader),
			Fix:  "set one of them, or both to the same cluster"}}
	}
	var out []providers.ConfigFinding
	for _, c := range consequences {
		if f.Global[c.name] == c.value {
			out = append(out, providers.ConfigFinding{Where: where + ": [Global] " + c.name, What: fmt.Sprintf(c.what, in.Reader), Fix: c.fix})
		}
	}
	return out
}

// consequences are settings whose effect a user must make up for outside
// the file, each warned wherever it is set.
var consequences = []struct{ name, value, what, fix string }{
	{"DisableSecurityGroupIngress", "true",
		"the %s writes no rule letting a load balancer's security group into the nodes' (updateInstanceSecurityGroupsForLoadBalancer in aws.go returns at once): " +
			"ELB sends its instances only what the nodes' group lets in, on the node ports and the health check's, so without a rule of your own the load balancers it makes never bring an instance into service. " +
			"A rehearsal's simulated nodes' group has only the rules the providers write: there, those load balancers take no traffic",
		"keep a rule of your own in the nodes' security group letting the VPC's range in on the node ports, 30000-32767 (kubernetes#21399, which added the setting), or leave DisableSecurityGroupIngress unset"},
}

// identity are the [Global] variables that name the cluster whose cloud
// resources a provider owns, compared as the cluster each works out
// (clusterIDs): managers that disagree take each other's load
// balancers, routes and security groups for another cluster's
// (zalando-incubator/kubernetes-on-aws#8487).
var identity = map[string]bool{"KubernetesClusterID": true, "KubernetesClusterTag": true}

// CompareCloudConfigs compares the two managers' cloud-configs variable
// by variable: a value that differs, or is set on one side only, changes
// what the provider does at the hand-off (kubernetes/cloud-provider#51).
// A variable only one side's release has (DisableStrictZoneCheck in tree,
// Region and NodeIPFamilies outside) cannot be the same on both: it is
// not compared.
func (Provider) CompareCloudConfigs(kcm, ccm providers.CloudConfigInput) []providers.ConfigFinding {
	kf, kerr := awsconfig.Read(kcm.Code, kcm.Text)
	cf, cerr := awsconfig.Read(ccm.Code, ccm.Text)
	if kerr != nil || cerr != nil {
		return nil // CheckCloudConfig says why
	}
	kFields, cFields := awsconfig.Fields(kcm.Code), awsconfig.Fields(ccm.Code)
	out := clusterIDs(kcm, ccm, kf, cf)
	for _, n := range setOnEither(kf, cf) {
		kv, cv := kf.Global[n], cf.Global[n]
		if kv == cv || identity[n] || !slices.Contains(kFields, n) || !slices.Contains(cFields, n) {
			continue
		}
		out = append(out, providers.ConfigFinding{Where: "[Global] " + n,
			What: fmt.Sprintf("%s has %s, %s has %s: the provider behaves otherwise once the cloud-controller-manager runs the cloud controllers", kcm.Path, shown(kv), ccm.Path, shown(cv)),
			Fix:  "give both managers the same value, unless the change is the point of the migration"})
	}
	return out
}

// setOnEither are the [Global] variables either file sets, sorted.
func setOnEither(kf, cf awsconfig.File) []string {
	var names []string
	for n := range kf.Global {
		names = append(names, n)
	}
	for n := range cf.Global {
		if _, ok := kf.Global[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// clusterIDs compares the clusters the two managers filter by, as each
// works it out; a side that names none takes its instance's tag, the same
// cluster's, and is not compared.
func clusterIDs(kcm, ccm providers.CloudConfigInput, kf, cf awsconfig.File) []providers.ConfigFinding {
	kid, _ := awsconfig.ClusterID(kf)
	cid, _ := awsconfig.ClusterID(cf)
	if kid == "" || cid == "" || kid == cid {
		return nil
	}
	return []providers.ConfigFinding{{Where: "[Global] KubernetesClusterID, KubernetesClusterTag",
		What: fmt.Sprintf("%s names cluster %q, %s names %q: the cloud-controller-manager looks for another cluster's resources: the instances, load balancers, routes and security groups the kube-controller-manager knew are not its own", kcm.Path, kid, ccm.Path, cid),
		Fix:  "give both managers the same cluster, unless the change is the point of the migration"}}
}

func shown(v string) string {
	if v == "" {
		return "it unset"
	}
	return fmt.Sprintf("%q", v)
}

// CarryCloudConfig: a rehearsal runs with the [Global] variables that
// change what the provider does, and leaves those naming the user's own
// places and resources, and the [ServiceOverride]s (awsconfig.Carry).
func (Provider) CarryCloudConfig(in providers.CloudConfigInput) ([][2]string, []providers.LeftOut, error) {
	f, err := awsconfig.Read(in.Code, in.Text)
	if err != nil {
		return nil, nil, err
	}
	vars, left := awsconfig.Carry(f)
	out := make([]providers.LeftOut, len(left))
	for i, l := range left {
		out[i] = providers.LeftOut(l)
	}
	return vars, out, nil
}
