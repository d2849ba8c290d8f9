package lint

import (
	"fmt"
	"slices"

	"github.com/handover-sh/handover/providers/awsconfig"
)

// CloudConfig is a user's --cloud-config for one side and the provider
// code that reads it (module/package@version, as providers.Code names it).
type CloudConfig struct {
	Path, Text, Code string
}

// identity are the [Global] variables that name the cluster whose cloud
// resources a provider owns, compared as the cluster each works out
// (lintClusterIDs): managers that disagree take each other's load
// balancers, routes and security groups for another cluster's
// (zalando-incubator/kubernetes-on-aws#8487).
var identity = map[string]bool{"KubernetesClusterID": true, "KubernetesClusterTag": true}

// lintCloudConfig: a side's cloud-config must be one its provider code
// reads, as the manager reads it when it starts (unknown variables,
// values of the wrong type and malformed sections are refused there).
func lintCloudConfig(s Side) Findings {
	c := s.CloudConfig
	if c == nil {
		return nil
	}
	where := c.Path + " (" + s.Component + ")"
	f, err := awsconfig.Read(c.Code, c.Text)
	if err != nil {
		return Findings{{Error, where, fmt.Sprintf("%s refuses it, and the %s does not start: %v", c.Code, s.Component, err),
			fmt.Sprintf("write only the variables %s reads ([Global]: %v)", c.Code, awsconfig.Fields(c.Code))}}
	}
	if _, ok := awsconfig.ClusterID(f); !ok {
		return Findings{{Error, where + ": [Global] KubernetesClusterTag, KubernetesClusterID",
			fmt.Sprintf("they differ (%q, %q): %s refuses to start (\"clusterID tags did not match\", tags.go)", f.Global["KubernetesClusterTag"], f.Global["KubernetesClusterID"], s.Component),
			"set one of them, or both to the same cluster"}}
	}
	return nil
}

// lintCloudConfigPair compares the two managers' cloud-configs variable by
// variable: a value that differs, or is set on one side only, changes
// what the provider does at the hand-off (kubernetes/cloud-provider#51).
// A variable only one side's release has (DisableStrictZoneCheck in tree,
// Region and NodeIPFamilies outside) cannot be the same on both: it is
// not compared.
func lintCloudConfigPair(k, c Side) Findings {
	if k.CloudConfig == nil || c.CloudConfig == nil {
		return nil
	}
	kf, kerr := awsconfig.Read(k.CloudConfig.Code, k.CloudConfig.Text)
	cf, cerr := awsconfig.Read(c.CloudConfig.Code, c.CloudConfig.Text)
	if kerr != nil || cerr != nil {
		return nil // lintCloudConfig says why
	}
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
	kFields, cFields := awsconfig.Fields(k.CloudConfig.Code), awsconfig.Fields(c.CloudConfig.Code)
	out := lintClusterIDs(k, c, kf, cf)
	for _, n := range names {
		kv, cv := kf.Global[n], cf.Global[n]
		if kv == cv || identity[n] || !slices.Contains(kFields, n) || !slices.Contains(cFields, n) {
			continue
		}
		out = append(out, Finding{Warning, "[Global] " + n,
			fmt.Sprintf("%s has %s, %s has %s: the provider behaves otherwise once the cloud-controller-manager runs the cloud controllers", k.CloudConfig.Path, shown(kv), c.CloudConfig.Path, shown(cv)),
			"give both managers the same value, unless the change is the point of the migration"})
	}
	return out
}

// lintClusterIDs compares the clusters the two managers filter by, as each
// works it out; a side that names none takes its instance's tag, the same
// cluster's, and is not compared.
func lintClusterIDs(k, c Side, kf, cf awsconfig.File) Findings {
	kid, _ := awsconfig.ClusterID(kf)
	cid, _ := awsconfig.ClusterID(cf)
	if kid == "" || cid == "" || kid == cid {
		return nil
	}
	return Findings{{Warning, "[Global] KubernetesClusterID, KubernetesClusterTag",
		fmt.Sprintf("%s names cluster %q, %s names %q: the cloud-controller-manager looks for another cluster's resources: the instances, load balancers, routes and security groups the kube-controller-manager knew are not its own", k.CloudConfig.Path, kid, c.CloudConfig.Path, cid),
		"give both managers the same cluster, unless the change is the point of the migration"}}
}

func shown(v string) string {
	if v == "" {
		return "it unset"
	}
	return fmt.Sprintf("%q", v)
}
