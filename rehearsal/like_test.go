package rehearsal

import (
	"slices"
	"strings"
	"testing"
)

// Like moves what handover cannot run to the nearest it can, and says
// each change; what it can run it leaves alone, saying nothing.
func TestLikeApproximatesAndSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     func(*Config)
		want   func(*Config)
		saying []string // one substring per approximation, in order
	}{
		{"runnable as it is", func(c *Config) {}, func(c *Config) {}, nil},
		{"a patch handover does not build", func(c *Config) { c.From, c.To = "v1.30.2", "v1.31.1" },
			func(c *Config) { c.From, c.To = "v1.30.14", "v1.31.4" },
			[]string{"from v1.30.2 on v1.30.14, handover's build of its minor", "to v1.31.1 on v1.31.4, handover's build of its minor"}},
		{"a minor handover does not build", func(c *Config) { c.From, c.To = "v1.25.3", "v1.26.1" },
			func(c *Config) { c.From, c.To = "v1.26.13", "v1.26.13" },
			[]string{"from v1.25.3 on v1.26.13, the nearest minor", "to v1.26.1 on v1.26.13, handover's build", "the upgrade itself is not rehearsed"}},
		{"aws where its own code cannot run the versions", func(c *Config) { c.Provider, c.From, c.To = "aws", "v1.29.15", "v1.29.15" },
			func(c *Config) { c.Provider, c.From, c.To = "", "v1.29.15", "v1.29.15" },
			[]string{"provider aws as handover's simulated provider, at the cluster's versions (--provider aws: Kubernetes v1.29.15 has no in-tree aws provider"}},
		{"aws's own settings go with it", func(c *Config) {
			c.Provider, c.From, c.To = "aws", "v1.29.15", "v1.29.15"
			c.Machines.SecondInterface, c.CloudConfig = true, map[string]string{"ccm": "cloud.conf"}
		}, func(c *Config) { c.From, c.To = "v1.29.15", "v1.29.15" },
			[]string{"provider aws as handover's simulated provider", "cloudConfig left out", "machines left out"}},
		{"a form the procedure does not run", func(c *Config) { c.CCM.Form, c.CCM.Replicas = "deployment", 2 },
			func(c *Config) { c.CCM.Form = "static-pod" },
			[]string{"ccm.form deployment as static-pod: taskdoc runs the cloud-controller-manager as static-pod"}},
		{"a cluster larger than a rehearsal", func(c *Config) { c.ControlPlanes, c.Workers = 5, 40 },
			func(c *Config) {}, []string{"controlPlanes 5 scaled down to 3", "workers 40 scaled down to 2"}},
		{"a manager on every one of its control planes", func(c *Config) {
			c.Procedure, c.ControlPlanes, c.CCM = "rke2", 5, CCMInput{Form: "deployment", Replicas: 5}
		}, func(c *Config) { c.CCM = CCMInput{Form: "deployment", Replicas: 3} },
			[]string{"controlPlanes 5 scaled down to 3", "ccm.replicas 5 scaled down to 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, want := Default(), Default()
			tc.in(&in)
			tc.want(&want)
			got := Like(in, "cluster.yaml")
			if got.Like != "cluster.yaml" || len(got.Approximated) != len(tc.saying) {
				t.Fatalf("approximated %q (like %q), want %d sentences: %q", got.Approximated, got.Like, len(tc.saying), tc.saying)
			}
			for i, s := range tc.saying {
				if !strings.Contains(got.Approximated[i], s) {
					t.Errorf("approximation %d: %q, want it to say %q", i, got.Approximated[i], s)
				}
			}
			got.Like, got.Approximated = "", nil
			if !equalConfigs(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
			if _, err := Like(in, "cluster.yaml").Validate(); err != nil {
				t.Errorf("the approximated rehearsal is refused: %v", err)
			}
		})
	}
}

func equalConfigs(a, b Config) bool {
	return a.Provider == b.Provider && a.From == b.From && a.To == b.To && a.ControlPlanes == b.ControlPlanes &&
		a.Workers == b.Workers && a.CCM == b.CCM && a.Machines == b.Machines && len(a.CloudConfig) == len(b.CloudConfig) &&
		slices.Equal(a.KCMArgs, b.KCMArgs)
}
