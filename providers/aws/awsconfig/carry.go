package awsconfig

import (
	"fmt"
	"maps"
	"slices"
)

// notCarried are the [Global] variables a rehearsal on the simulated
// cloud does not run with, and why: each names a place or a resource of
// the user's own account, or something the simulated cloud does not
// have. The lint compares them all the same.
var notCarried = map[string]string{
	"Zone":                 "names a zone of your cloud; the rehearsal's are the simulated region's",
	"Region":               "names a region of your cloud; the rehearsal's is the simulated one",
	"VPC":                  "names a VPC of your account, which the simulated cloud has not",
	"SubnetID":             "names a subnet of your account, which the simulated cloud has not",
	"RouteTableID":         "names a route table of your account, which the simulated cloud has not",
	"ElbSecurityGroup":     "names a security group of your account, which the simulated cloud has not",
	"RoleARN":              "the simulated cloud serves no STS: each component signs with the key it issued it",
	"NodeIPFamilies":       "the simulated VPC is IPv4 only",
	"KubernetesClusterTag": "the simulated cloud tags resources kubernetes.io/cluster/<id> (KubernetesClusterID), not with the legacy KubernetesCluster tag",
}

// Left is a variable a rehearsal runs without.
type Left struct{ Name, Value, Why string }

// Carry splits a file's [Global] variables into those a rehearsal runs
// with (in name order) and those it leaves, with why; its
// [ServiceOverride]s are left too (the rehearsal's point at the
// simulated cloud).
func Carry(f File) (vars [][2]string, left []Left) {
	for _, name := range slices.Sorted(maps.Keys(f.Global)) {
		v := f.Global[name]
		if why, ok := notCarried[name]; ok {
			left = append(left, Left{name, v, why})
			continue
		}
		vars = append(vars, [2]string{name, v})
	}
	for _, name := range slices.Sorted(maps.Keys(f.Overrides)) {
		left = append(left, Left{fmt.Sprintf("[ServiceOverride %q]", name), f.Overrides[name].URL,
			"the rehearsal's overrides point the providers at the simulated cloud"})
	}
	return vars, left
}
