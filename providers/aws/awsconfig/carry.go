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
	"ElbSecurityGroup":     "names a security group of your account, which the simulated cloud has not",
	"RoleARN":              "the simulated cloud serves no STS: each component signs with the key it issued it",
	"NodeIPFamilies":       "the simulated VPC is IPv4 only",
	"KubernetesClusterTag": "the simulated cloud tags resources kubernetes.io/cluster/<id> (KubernetesClusterID), not with the legacy KubernetesCluster tag",
}

// standIns are the [Global] variables naming a resource of the user's
// that the simulated cloud has its own of: a rehearsal carries them with
// the cluster's own in place of the user's (StandInFor), so the provider
// takes the path the user's file sends it on (a RouteTableID named: no
// search for the tables tagged for the cluster, findRouteTable in
// aws_routes.go).
var standIns = map[string]string{"RouteTableID": "the cluster's main route table"}

// StandInFor is what a carried variable's value is in the plan, and
// whether name is a stand-in at all: the resource the cluster's cloud
// names in its place when the cluster is made, and the user's value.
func StandInFor(name, value string) (string, bool) {
	what, ok := standIns[name]
	if !ok {
		return "", false
	}
	return fmt.Sprintf("(%s, in place of %s)", what, value), true
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
		if in, ok := StandInFor(name, v); ok {
			v = in
		}
		vars = append(vars, [2]string{name, v})
	}
	for _, name := range slices.Sorted(maps.Keys(f.Overrides)) {
		left = append(left, Left{fmt.Sprintf("[ServiceOverride %q]", name), f.Overrides[name].URL,
			"the rehearsal's overrides point the providers at the simulated cloud"})
	}
	return vars, left
}
