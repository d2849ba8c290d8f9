package topology

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, yaml, wantErr string
	}{
		{"defaults", "", ""},
		{"custom", "name: ha\ncontrolPlanes: 5\nworkers: 0\nkubernetes: v1.31.4\n", ""},
		{"zero control planes", "controlPlanes: 0", "at least 1 control-plane"},
		{"negative workers", "workers: -1", "use 0 or more"},
		{"unknown version", "kubernetes: v1.99.0", "unknown Kubernetes version"},
		{"unknown field", "masters: 3", `not a valid topology: t.yaml:1:1: unknown field "masters" (fields: name,`},
		{"malformed", "controlPlanes: [3", "not a valid topology"},
		{"bad name", "name: Bad_Name", "lower-case"},
		{"bad subnet", "podSubnet: 10.244.0.0", "IPv4 CIDR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "t.yaml")
			if c.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("want error containing %q, got %v", c.wantErr, err)
			}
		})
	}
}
