package lmconfig

import (
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	c := New(CCM, "service-lb-controller", "node-route-controller")
	got, err := Parse([]byte(c.YAML()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner("node-route-controller") != CCM || got.LeaderName != DefaultLeaderName || got.Owner("x") != "" {
		t.Fatalf("round trip lost data: %+v", got)
	}
}

func TestWildcardRoundTrips(t *testing.T) {
	c := New(Wildcard, "service-lb-controller")
	got, err := Parse([]byte(c.YAML()))
	if err != nil || got.Owner("service-lb-controller") != Wildcard {
		t.Fatalf("wildcard component did not survive YAML: %v\n%s", err, c.YAML())
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":         "  \n",
		"malformed":     "kind: [unclosed\n",
		"unknown field": "kind: LeaderMigrationConfiguration\ncontrollerLeader:\n- name: route\n",
		"wrong type":    "controllerLeaders: route\n",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), "LeaderMigrationConfiguration") {
			t.Errorf("%s: want a clear error, got %v", name, err)
		}
	}
}
