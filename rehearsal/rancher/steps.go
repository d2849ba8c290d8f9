package rancher

import (
	"fmt"
	"slices"

	"github.com/handover-sh/handover/migrate"
)

// change is a kind of difference between two files that a runbook's step
// makes.
type change int

const (
	kcmLMOn      change = iota // enable-leader-migration added to kube-controller-manager
	kcmLMOff                   // … removed
	switched                   // kube-controller-manager's provider: in tree → external
	unswitched                 // external → in tree
	raised                     // the Kubernetes version raised
	chartAdded                 // the cloud-controller-manager chart added to additionalManifest
	chartRemoved               // … removed
	ccmLMOn                    // --enable-leader-migration added to the chart's args
	ccmLMOff                   // … removed
	hostname                   // RKE's useInstanceMetadataHostname set or changed
	kcmFlags                   // kube-controller-manager's other flags changed
	chartValues                // the chart's other values changed
)

// detector finds one kind of change between before and after, saying
// what changed and where.
type detector struct {
	kind   change
	detect func(b, a *Cluster) (what string, at Where, ok bool)
}

// detectors are every change an edit can make that handover reads.
var detectors = []detector{
	{switched, func(b, a *Cluster) (string, Where, bool) {
		bi, bk := b.inTree()
		ai, ak := a.inTree()
		return providerChange(b, a), a.kcmProvider().At, bk && ak && bi && !ai
	}},
	{unswitched, func(b, a *Cluster) (string, Where, bool) {
		bi, bk := b.inTree()
		ai, ak := a.inTree()
		return providerChange(b, a), a.kcmProvider().At, bk && ak && !bi && ai
	}},
	{kcmLMOn, func(b, a *Cluster) (string, Where, bool) {
		return "kube-controller-manager: enable-leader-migration added", a.KCMLeaderMigration.At, !b.KCMLeaderMigration.Enabled && a.KCMLeaderMigration.Enabled
	}},
	{kcmLMOff, func(b, a *Cluster) (string, Where, bool) {
		return "kube-controller-manager: enable-leader-migration removed", b.KCMLeaderMigration.At, b.KCMLeaderMigration.Enabled && !a.KCMLeaderMigration.Enabled
	}},
	{raised, func(b, a *Cluster) (string, Where, bool) {
		return fmt.Sprintf("Kubernetes %s → %s", b.Version.Given, a.Version.Given), a.Version.At,
			b.Version.Upstream != "" && a.Version.Upstream != "" && compare(b.Version.Upstream, a.Version.Upstream) < 0
	}},
	{chartAdded, func(b, a *Cluster) (string, Where, bool) {
		if a.Chart == nil {
			return "", Where{}, false
		}
		return "the " + a.Chart.Name + " chart added" + lmSuffix(a.Chart.LeaderMigration), a.Chart.At, b.Chart == nil
	}},
	{chartRemoved, func(b, a *Cluster) (string, Where, bool) {
		if b.Chart == nil {
			return "", Where{}, false
		}
		return "the " + b.Chart.Name + " chart removed", b.Chart.At, a.Chart == nil
	}},
	{ccmLMOn, func(b, a *Cluster) (string, Where, bool) {
		return "the chart's args: --enable-leader-migration added", chartLMAt(a), bothCharts(b, a) && !b.Chart.LeaderMigration.Enabled && a.Chart.LeaderMigration.Enabled
	}},
	{ccmLMOff, func(b, a *Cluster) (string, Where, bool) {
		return "the chart's args: --enable-leader-migration removed", chartLMAt(b), bothCharts(b, a) && b.Chart.LeaderMigration.Enabled && !a.Chart.LeaderMigration.Enabled
	}},
	{hostname, func(b, a *Cluster) (string, Where, bool) {
		return fmt.Sprintf("useInstanceMetadataHostname: %s", boolText(a.MetadataHostname)), a.MetadataHostnameAt,
			a.MetadataHostname != nil && (b.MetadataHostname == nil || *b.MetadataHostname != *a.MetadataHostname)
	}},
	{kcmFlags, func(b, a *Cluster) (string, Where, bool) {
		return fmt.Sprintf("kube-controller-manager's other flags: %v → %v", flags(b.KCMArgs), flags(a.KCMArgs)), Where{Source: a.Source},
			!slices.Equal(flags(b.KCMArgs), flags(a.KCMArgs))
	}},
	{chartValues, func(b, a *Cluster) (string, Where, bool) {
		if !bothCharts(b, a) {
			return "", Where{}, false
		}
		return "the chart's other values or version", a.Chart.At, b.Chart.Version != a.Chart.Version || !slices.Equal(flags(b.Chart.Args), flags(a.Chart.Args)) || b.Chart.Replicas != a.Chart.Replicas
	}},
}

func providerChange(b, a *Cluster) string {
	return fmt.Sprintf("the cloud provider %s → %s", b.kcmProvider().Text, a.kcmProvider().Text)
}

func lmSuffix(lm LeaderMigration) string {
	if lm.Enabled {
		return ", with --enable-leader-migration"
	}
	return ""
}

func chartLMAt(c *Cluster) Where {
	if c.Chart == nil {
		return Where{}
	}
	if c.Chart.LeaderMigration.At.Source != "" {
		return c.Chart.LeaderMigration.At
	}
	return c.Chart.At
}

func bothCharts(b, a *Cluster) bool { return b.Chart != nil && a.Chart != nil }

func boolText(b *bool) string {
	if b == nil {
		return "not set"
	}
	return fmt.Sprint(*b)
}

func flags(args []Arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.Flag
	}
	return out
}

// stepRow is a runbook's step that makes a kind of change, when the after
// file is as it says (nil: always).
type stepRow struct {
	step, title string
	makes       change
	when        func(after *Cluster) bool
}

// runbook is one of Rancher's runbooks as steps that edit the files.
// Steps done outside the files (cordon, kubectl patch, helm) are not
// rows: an edit cannot show them.
type runbook struct {
	source string
	steps  []stepRow
}

func external(a *Cluster) bool { t, known := a.inTree(); return known && !t }
func inTree(a *Cluster) bool   { t, known := a.inTree(); return known && t }

// The steps each runbook's tab numbers, from Rancher's "Migrating Amazon
// In-tree to Out-of-tree" and "Migrating Azure In-tree to Out-of-tree".
const (
	enableKCM   = "enable leader migration in kube-controller-manager (the cloud provider still in tree)"
	switchTitle = "change the cloud provider to external and remove leader migration from kube-controller-manager"
	raiseTitle  = "set the Kubernetes version, if upgrading"
)

var runbooks = map[string]map[string]runbook{
	migrate.RKE2: {
		"aws": {source: "Rancher: Migrating Amazon In-tree to Out-of-tree, RKE2", steps: []stepRow{
			{"1", enableKCM, kcmLMOn, inTree},
			{"3", "install the aws-cloud-controller-manager chart (additionalManifest) with --enable-leader-migration=true", chartAdded, nil},
			{"3", "add --enable-leader-migration=true to the chart's args", ccmLMOn, nil},
			{"5", switchTitle, switched, nil},
			{"5", switchTitle, kcmLMOff, external},
			{"5", switchTitle + "; " + raiseTitle, raised, external},
			{"5 (tip)", "remove --enable-leader-migration=true from the chart once it runs alone", ccmLMOff, external},
		}},
		"azure": {source: "Rancher: Migrating Azure In-tree to Out-of-tree, RKE2", steps: []stepRow{
			{"1", enableKCM, kcmLMOn, inTree},
			{"3", "install the cloud-provider-azure chart (additionalManifest)", chartAdded, nil},
			{"5", switchTitle, switched, nil},
			{"5", switchTitle, kcmLMOff, external},
			{"5", switchTitle + "; " + raiseTitle, raised, external},
		}},
	},
	migrate.RKE: {
		"aws": {source: "Rancher: Migrating Amazon In-tree to Out-of-tree, RKE", steps: []stepRow{
			{"1", enableKCM, kcmLMOn, inTree},
			{"5", "change cloud_provider to external-aws (useInstanceMetadataHostname) and remove leader migration from kube-controller", switched, nil},
			{"5", "change cloud_provider to external-aws (useInstanceMetadataHostname)", hostname, external},
			{"5", "remove leader migration from kube-controller", kcmLMOff, external},
			{"6", raiseTitle, raised, external},
		}},
		"azure": {source: "Rancher: Migrating Azure In-tree to Out-of-tree, RKE", steps: []stepRow{
			{"1", enableKCM, kcmLMOn, inTree},
			{"6", "change cloud_provider to external and remove leader migration from kube-controller", switched, nil},
			{"6", "remove leader migration from kube-controller", kcmLMOff, external},
			{"7", raiseTitle, raised, external},
		}},
	},
}

// order is what a kind of change needs of the files, as the runbooks
// order their steps.
type order struct {
	kind  change
	needs func(before, after *Cluster) bool
	says  string
}

// orders are the runbooks' orders an edit can break.
var orders = []order{
	{switched, func(b, _ *Cluster) bool { return b.KCMLeaderMigration.Enabled },
		"kube-controller-manager has no enable-leader-migration before the switch (step 1 not done): this is the runbooks' route with downtime, not their leader migration"},
	{raised, func(_, a *Cluster) bool { return external(a) },
		"the version is raised while kube-controller-manager still runs the in-tree provider: the runbooks raise it with the switch or after it"},
	{unswitched, func(_, _ *Cluster) bool { return false },
		"back to the in-tree provider: a rollback, which Rancher's runbooks do not describe"},
}

// Edit is an edit of a cluster's YAML placed in its runbook.
type Edit struct {
	Runbook string // the runbook's source; "" when handover has none for the cloud
	Changes []Change
	// Steps are the runbook's steps the changes make, in the runbook's
	// order.
	Steps []string
	// Findings are what the edit does out of the runbook's order.
	Findings []string
}

// Change is one change of an edit, with the runbook's step that makes it
// ("" when no step does).
type Change struct {
	What      string
	At        Where
	Step      string
	StepTitle string
}

// inferEdit finds what changed between before and after and which of the
// runbook's steps make it.
func inferEdit(b, a *Cluster, cloud string) *Edit {
	rb, ok := runbooks[b.Procedure][cloud]
	e := &Edit{Runbook: rb.source}
	var kinds []change
	for _, d := range detectors {
		what, at, found := d.detect(b, a)
		if !found {
			continue
		}
		kinds = append(kinds, d.kind)
		c := Change{What: what, At: at}
		if ok {
			c.Step, c.StepTitle = rb.stepFor(d.kind, a)
		}
		e.Changes = append(e.Changes, c)
	}
	for _, s := range rb.steps {
		if slices.ContainsFunc(e.Changes, func(c Change) bool { return c.Step == s.step }) && !slices.Contains(e.Steps, s.step) {
			e.Steps = append(e.Steps, s.step)
		}
	}
	for _, o := range orders {
		if slices.Contains(kinds, o.kind) && !o.needs(b, a) {
			e.Findings = append(e.Findings, o.says)
		}
	}
	return e
}

// stepFor is the runbook's step that makes a kind of change to after.
func (rb runbook) stepFor(kind change, after *Cluster) (string, string) {
	for _, s := range rb.steps {
		if s.makes == kind && (s.when == nil || s.when(after)) {
			return s.step, s.title
		}
	}
	return "", ""
}
