package rehearsal

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/faults"
	"github.com/handover-sh/handover/simulate/scale"
)

// onMachine makes the plan's machine one with cores and GiB available.
func onMachine(t *testing.T, cores int, gib int64) {
	t.Helper()
	was := machine
	machine = func() (scale.Machine, error) { return scale.Machine{Cores: cores, AvailableBytes: gib << 30}, nil }
	t.Cleanup(func() { machine = was })
}

func TestScaleDefaultsAndPodNetwork(t *testing.T) {
	onMachine(t, 2, 20)
	c := Default()
	c.Scale.Nodes = 250
	p, err := c.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if want := scale.ForNodes(250); p.Scale != want || p.Scale.Services != 50 || p.Scale.JoinEvery != 10*time.Second {
		t.Fatalf("scale %+v, want %+v", p.Scale, want)
	}
	if p.Topology.PodSubnet != scalePodSubnet {
		t.Errorf("pod subnet %s: 250 nodes need more than a /16 of /24s", p.Topology.PodSubnet)
	}
	none, zero := 0, 0.0
	c.Scale.Services, c.Scale.ThrottleQPS, c.Scale.JoinEvery = &none, &zero, "0s"
	if p, err = c.Validate(); err != nil || p.Scale.Services != 0 || p.Scale.ThrottleQPS != 0 || p.Scale.JoinEvery != 0 {
		t.Fatalf("explicit zeroes: %+v, %v", p.Scale, err)
	}
	if p, err = Default().Validate(); err != nil || !p.Scale.None() || p.Topology.PodSubnet == scalePodSubnet {
		t.Fatalf("no --scale: %+v, %v", p, err)
	}
}

// Each bad fleet is refused before anything runs, saying what to change.
func TestScaleRefusedBeforeAnythingRuns(t *testing.T) {
	onMachine(t, 2, 20)
	ten, neg := 10, -1
	cases := []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"negative", func(c *Config) { c.Scale.Nodes = -5 }, "must not be negative"},
		{"negative services", func(c *Config) { c.Scale.Nodes, c.Scale.Services = 5, &neg }, "must not be negative"},
		{"more than the machine holds", func(c *Config) { c.Scale.Nodes = 1000 }, "holds at most 500 simulated nodes"},
		{"more than the pod network holds", func(c *Config) { c.Scale.Nodes = 2000 }, "at most 1500"},
		{"no worker to follow", func(c *Config) { c.Scale.Nodes, c.Workers, c.Load = 5, 0, "none" }, "give --workers 1 or more"},
		{"a throttle of no number", func(c *Config) { nan := math.NaN(); c.Scale.Nodes, c.Scale.ThrottleQPS = 5, &nan }, "scale.throttleQPS"},
		{"services without nodes", func(c *Config) { c.Scale.Services = &ten }, "give --scale N (scale.nodes) too"},
		{"more services than nodes", func(c *Config) { c.Scale.Nodes, c.Scale.Services = 5, &ten }, "--scale-services (scale.services) 10 > --scale (scale.nodes) 5"},
		{"join interval", func(c *Config) { c.Scale.Nodes, c.Scale.JoinEvery = 5, "soon" }, "scale.joinEvery"},
		{"join too often", func(c *Config) { c.Scale.Nodes, c.Scale.JoinEvery = 5, "100ms" }, "below 1s"},
		{"a cloud fault", func(c *Config) { c.Scale.Nodes, c.Faults.Name = 5, faults.CloudThrottle }, "rehearse them apart"},
	}
	for _, tc := range cases {
		c := Default()
		tc.set(&c)
		if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	onMachine(t, 8, 7)
	c := Default()
	c.Scale.Nodes = 200
	if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), "holds at most 128") {
		t.Errorf("memory bounds the fleet too: %v", err)
	}
	zero := 0.0
	c.Scale.Nodes, c.Scale.ThrottleQPS, c.Faults.Name = 5, &zero, faults.CloudThrottle
	if _, err := c.Validate(); err != nil {
		t.Errorf("an unthrottled fleet beside a cloud fault: %v", err)
	}
	// Every rehearsal asks the machine, fleet or not: its kind nodes must
	// fit too (nodes_test.go).
	was := machine
	machine = func() (scale.Machine, error) { return scale.Machine{}, errors.New("no MemAvailable line") }
	defer func() { machine = was }()
	if _, err := Default().Validate(); err == nil || !strings.Contains(err.Error(), "no MemAvailable line") {
		t.Fatalf("the machine unknown: %v", err)
	}
}
