package awsconfig

import (
	"reflect"
	"strings"
	"testing"
)

const (
	inTree = "k8s.io/legacy-cloud-providers/aws@v0.26.13"
	ccm    = "k8s.io/cloud-provider-aws@v1.27.2"
)

// Each release refuses what its struct has no field for, in gcfg's words,
// and matches names as gcfg does, whatever their case.
func TestReadAsEachReleaseReads(t *testing.T) {
	for _, tc := range []struct {
		code, text string
		want       map[string]string
		err        string
	}{
		{inTree, "[Global]\nkubernetesclusterid = prod\nDisableSecurityGroupIngress = true\n", map[string]string{"KubernetesClusterID": "prod", "DisableSecurityGroupIngress": "true"}, ""},
		{inTree, "[Global]\nRegion = us-east-1\n", nil, `can't store data at section "Global", variable "Region"`},
		{ccm, "[Global]\nRegion = us-east-1\nNodeIPFamilies = ipv4\nNodeIPFamilies = ipv6\n", map[string]string{"Region": "us-east-1", "NodeIPFamilies": "ipv4,ipv6"}, ""},
		{ccm, "[Global]\nDisableStrictZoneCheck = true\n", nil, `can't store data at section "Global", variable "DisableStrictZoneCheck"`},
		{"k8s.io/cloud-provider-aws@v1.26.1", "[Global]\nDisableStrictZoneCheck = true\n", map[string]string{"DisableStrictZoneCheck": "true"}, ""},
		{ccm, "[Global]\nDisableSecurityGroupIngress = maybe\n", nil, "failed to parse"},
		{ccm, "[Global\n", nil, "expected"},
		{ccm, "[Other]\nx = 1\n", nil, `can't store data at section "Other"`},
	} {
		got, err := Read(tc.code, tc.text)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: error %v, want one with %q", tc.code, tc.text, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got.Global, tc.want) {
			t.Errorf("%s %q: %v, %v; want %v", tc.code, tc.text, got.Global, err, tc.want)
		}
	}
	if _, err := Read("k8s.io/cloud-provider-aws@v9.9.9", ""); err == nil {
		t.Error("an unknown release's file was read")
	}
}

// A rehearsal runs with the variables that change what the providers do
// and leaves those naming the user's own places and resources.
func TestCarry(t *testing.T) {
	f, err := Read(ccm, "[Global]\nKubernetesClusterID = prod\nVPC = vpc-1\nDisableSecurityGroupIngress = true\nRouteTableId = rtb-1\n"+
		"[ServiceOverride \"1\"]\nService = ec2\nRegion = us-east-1\nURL = https://ec2.example\nSigningRegion = us-east-1\n")
	if err != nil {
		t.Fatal(err)
	}
	vars, left := Carry(f)
	if want := [][2]string{{"DisableSecurityGroupIngress", "true"}, {"KubernetesClusterID", "prod"},
		{"RouteTableID", "(the cluster's main route table, in place of rtb-1)"}}; !reflect.DeepEqual(vars, want) {
		t.Errorf("carried %v, want %v", vars, want)
	}
	if len(left) != 2 || left[0].Name != "VPC" || left[1].Name != `[ServiceOverride "1"]` {
		t.Errorf("left %+v", left)
	}
}

// Every variable any release knows is either carried or left with a
// reason on purpose: a new release's variable must be decided.
func TestEveryVariableIsDecided(t *testing.T) {
	carried := map[string]bool{"KubernetesClusterID": true, "DisableSecurityGroupIngress": true, "DisableStrictZoneCheck": true, "RouteTableID": true}
	for _, code := range Codes() {
		for _, name := range Fields(code) {
			if _, left := notCarried[name]; left == carried[name] {
				t.Errorf("%s [Global] %s: decide whether a rehearsal carries it", code, name)
			}
		}
	}
}
