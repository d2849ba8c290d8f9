package rehearsal

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/providers"
)

// The size a rehearsal of a larger cluster is scaled down to: the
// default rehearsal's, which a 2-core machine runs.
const (
	likeControlPlanes = 3
	likeWorkers       = 2
)

// Like is c, a file describing a cluster (handover describe), made a
// rehearsal handover runs: each version on the nearest node image handover
// builds, the provider's own code where it runs on those versions, else
// another provider of the same cloud, else handover's simulated provider,
// and the cluster scaled down to a rehearsal's size. What it changed is
// in Approximated, each a sentence, and the reports say it.
func Like(c Config, path string) Config {
	c.Like, c.Approximated = path, nil
	upgrade := c.From != c.To
	c.From = c.nearest("from", c.From)
	c.To = c.nearest("to", c.To)
	c.pairUp()
	if upgrade && c.From == c.To && c.From != "" {
		c.approximate("the upgrade itself is not rehearsed: both versions fall on %s", c.From)
	}
	c.likeProvider()
	c.likeForm()
	c.scaleDown("controlPlanes", &c.ControlPlanes, likeControlPlanes)
	c.scaleDown("workers", &c.Workers, likeWorkers)
	if c.CCM.Replicas > 0 && c.ControlPlanes > 0 {
		c.scaleDown("ccm.replicas", &c.CCM.Replicas, c.ControlPlanes)
	}
	return c
}

func (c *Config) approximate(format string, args ...any) {
	c.Approximated = append(c.Approximated, fmt.Sprintf(format, args...))
}

// nearest is the node image nearest v: its own, else its minor's, else
// the nearest minor's (the older on a tie).
func (c *Config) nearest(field, v string) string {
	if _, err := nodeimage.Lookup(v); err == nil || v == "" {
		return v
	}
	want, err := version.ParseGeneric(v)
	if err != nil {
		return v // Validate says what is wrong with it
	}
	best, dist := "", -1
	for _, k := range nodeimage.Known() {
		kv := version.MustParseGeneric(k)
		if kv.Major() != want.Major() {
			continue
		}
		d := int(kv.Minor()) - int(want.Minor())
		d = max(d, -d)
		if dist < 0 || d < dist || (d == dist && kv.LessThan(version.MustParseGeneric(best))) {
			best, dist = k, d
		}
	}
	if best == "" {
		return v
	}
	if dist == 0 {
		c.approximate("%s %s on %s, handover's build of its minor", field, v, best)
	} else {
		c.approximate("%s %s on %s, the nearest minor handover builds", field, v, best)
	}
	return best
}

// pairUp keeps to within one minor after from, as every rehearsal is.
func (c *Config) pairUp() {
	if c.From == "" || c.To == "" || nodeimage.PairOK(c.From, c.To) {
		return
	}
	f, t := version.MustParseGeneric(c.From), version.MustParseGeneric(c.To)
	if t.Minor() > f.Minor()+1 {
		for _, k := range nodeimage.Known() {
			if kv := version.MustParseGeneric(k); kv.Minor() == f.Minor()+1 && nodeimage.PairOK(c.From, k) {
				c.approximate("to %s on %s: a rehearsal raises one minor, from %s", c.To, k, c.From)
				c.To = k
				return
			}
		}
	}
}

// likeProvider is the provider that runs c's versions: c's, else another
// of its cloud (its own code, handover's, an imitation), else handover's
// simulated provider; settings only the dropped provider reads go with it.
func (c *Config) likeProvider() {
	if c.Provider == "" || c.runs(c.Provider) == nil {
		return
	}
	p, err := providers.Lookup(c.Provider)
	if err != nil {
		return // Validate says so
	}
	why := c.runs(c.Provider).Error()
	for _, other := range providers.OfCloud(providers.CloudName(p)) {
		if other.Name() != c.Provider && c.runs(other.Name()) == nil {
			c.approximate("provider %s as %s, which runs %s on %s → %s (%s)", c.Provider, other.Name(), other.Runs(), c.From, c.To, why)
			c.Provider = other.Name()
			c.dropUnread(other)
			return
		}
	}
	c.approximate("provider %s as handover's simulated provider, at the cluster's versions (%s)", c.Provider, why)
	c.Provider = ""
	c.dropUnread(providers.Default())
}

// dropUnread leaves out the settings p's code does not read.
func (c *Config) dropUnread(p providers.Provider) {
	if _, reads := providers.As[providers.CloudConfigs](p); !reads && len(c.CloudConfig) > 0 {
		c.approximate("cloudConfig left out: the %s provider's code reads none", p.Name())
		c.CloudConfig = nil
	}
	if _, reads := providers.As[providers.MachineShapes](p); !reads && c.Machines != (MachinesInput{}) {
		c.approximate("machines left out: the %s provider's code reads no machine shapes", p.Name())
		c.Machines = MachinesInput{}
	}
}

// runs says why the provider named cannot run c's procedure on its
// versions, or nil.
func (c *Config) runs(provider string) error {
	s := migrate.DefaultSpec(c.Procedure)
	s.From, s.To, s.Flavour = c.From, c.To, c.Flavour
	return s.SetCloudProfile(provider)
}

// likeForm runs the cloud-controller-manager as the procedure can: the
// cluster's form where the procedure runs it so, else the procedure's
// default form.
func (c *Config) likeForm() {
	reg, err := migrate.Lookup(c.Procedure)
	forms := reg.Managers.CCMForms
	if err != nil || c.CCM.Form == "" || len(forms) == 0 || slices.Contains(forms, c.CCM.Form) {
		return
	}
	c.approximate("ccm.form %s as %s: %s runs the cloud-controller-manager as %s", c.CCM.Form, forms[0], c.Procedure, strings.Join(forms, " or "))
	c.CCM.Form = forms[0]
	if forms[0] != managers.Deployment {
		c.CCM.Replicas = 0
	}
}

// scaleDown keeps n at most limit.
func (c *Config) scaleDown(field string, n *int, limit int) {
	if *n > limit {
		c.approximate("%s %d scaled down to %d", field, *n, limit)
		*n = limit
	}
}
