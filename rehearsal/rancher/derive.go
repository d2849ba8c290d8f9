package rancher

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/rehearsal"
)

// Description is a rehearsal derived from one Rancher file or from two
// (before and after an edit): the rehearsal file's fields, where each came
// from, what the files say that it does not carry, and the edit's place in
// the runbook.
type Description struct {
	Before, After *Cluster // After is nil for one file
	Config        rehearsal.Config
	// From says where a field of Config came from, by its key in the
	// rehearsal file.
	From map[string]string
	// Notes are what the files say that the rehearsal carries changed or
	// not at all, and why.
	Notes []Note
	Edit  *Edit // nil for one file
}

// Describe derives a rehearsal from before and, if not nil, after: the
// same cluster after an edit. Two files of different clusters, clouds or
// kinds, or an after older than before, are an error.
func Describe(before, after *Cluster) (*Description, error) {
	if err := samePair(before, after); err != nil {
		return nil, err
	}
	d := &Description{Before: before, After: after, From: map[string]string{}}
	d.Config.Procedure = before.Procedure
	d.From["procedure"] = "an " + before.Kind + ": Rancher's " + strings.ToUpper(before.Procedure) + " runbook"
	cloud, err := d.cloud()
	if err != nil {
		return nil, err
	}
	for _, c := range d.files() {
		d.addNotes(c.Notes)
	}
	steps := []func(cloudEvidence){d.flavour, d.versions, d.provider, d.leaderMigration, d.kcmArgs, d.chart, d.inTreeVersions}
	for _, step := range steps {
		step(cloud)
	}
	if after != nil {
		d.Edit = inferEdit(before, after, cloud.cloud)
	}
	return d, nil
}

// addNotes adds the notes not already there: the after file repeats much
// of the before file.
func (d *Description) addNotes(ns []Note) {
	for _, n := range ns {
		if !slices.ContainsFunc(d.Notes, func(have Note) bool { return have.At.Field == n.At.Field && have.Text == n.Text }) {
			d.Notes = append(d.Notes, n)
		}
	}
}

// files are the files described, before first.
func (d *Description) files() []*Cluster {
	if d.After == nil {
		return []*Cluster{d.Before}
	}
	return []*Cluster{d.Before, d.After}
}

// last is the after file, or the one file.
func (d *Description) last() *Cluster { return d.files()[len(d.files())-1] }

// samePair refuses two files that cannot be one cluster before and after
// an edit.
func samePair(b, a *Cluster) error {
	if a == nil {
		return nil
	}
	if b.Procedure != a.Procedure {
		return fmt.Errorf("%s is an %s and %s an %s: a pair is one cluster's YAML before and after an edit", b.Source, b.Kind, a.Source, a.Kind)
	}
	for _, v := range [][2]Value{{b.Name, a.Name}, {b.Namespace, a.Namespace}} {
		if v[0].Text != "" && v[1].Text != "" && v[0].Text != v[1].Text {
			return fmt.Errorf("%s: %q before, but %s: %q after: a pair is one cluster's YAML before and after an edit", v[0].At, v[0].Text, v[1].At, v[1].Text)
		}
	}
	if bv, av := b.Version.Upstream, a.Version.Upstream; bv != "" && av != "" && compare(av, bv) < 0 {
		return fmt.Errorf("%s: %s after, older than %s before (%s): Kubernetes is not downgraded; are the files the other way round?", a.Version.At, a.Version.Given, b.Version.Given, b.Version.At)
	}
	return nil
}

// cloud is the cloud both files name; files naming two are an error.
func (d *Description) cloud() (cloudEvidence, error) {
	var cloud cloudEvidence
	for _, c := range d.files() {
		got, err := c.cloud()
		if err != nil {
			return got, err
		}
		if got.cloud != "" && cloud.cloud != "" && got.cloud != cloud.cloud {
			return got, fmt.Errorf("%s: %s is %s's, but %s: %s is %s's: a pair is one cluster's YAML before and after an edit",
				cloud.at, cloud.what, cloud.cloud, got.at, got.what, got.cloud)
		}
		if cloud.cloud == "" {
			cloud = got
		}
	}
	return cloud, nil
}

// flavour is the procedure's flavour for the cloud or, where the cloud is
// not said, the one the cloud provider's name selects.
func (d *Description) flavour(cloud cloudEvidence) {
	proc := d.Config.Procedure
	if f, ok := flavours[proc][cloud.cloud]; ok {
		d.Config.Flavour, d.From["flavour"] = f, fmt.Sprintf("Rancher's %s runbook (%s: %s)", cloud.cloud, cloud.at, cloud.what)
		if name := d.last().CloudProvider; cloudNames[proc][name.Text].flavour != "" && cloudNames[proc][name.Text].flavour != f {
			d.note(name.At, "%s where the %s runbook names %s: rehearsed as %s", name.Text, cloud.cloud, f, f)
		}
		return
	}
	for _, c := range slices.Backward(d.files()) {
		if n := cloudNames[proc][c.CloudProvider.Text]; n.flavour != "" {
			d.Config.Flavour, d.From["flavour"] = n.flavour, fmt.Sprintf("the cloud provider %s (%s)", c.CloudProvider.Text, c.CloudProvider.At)
			return
		}
	}
	name := d.last().CloudProvider
	if _, known := cloudNames[proc][name.Text]; !known {
		d.note(name.At, "cloud provider %q: handover rehearses Rancher's runbooks for %s; flavour not derived (the %s procedure's default applies unless you write one)", name.Text, knownNames(proc), proc)
		return
	}
	d.note(name.At, "%s names no cloud, and neither a chart nor the machines say which: flavour not derived (the %s procedure's default applies unless you write one)", name.Text, proc)
}

// versions are from (before's) and to (after's, or from); the cluster's
// versions are kept even where handover has no node image of them, so
// that the file says what the cluster runs.
func (d *Description) versions(cloudEvidence) {
	b, a := d.Before.Version, d.last().Version
	if b.Upstream == "" || a.Upstream == "" {
		return
	}
	d.Config.From, d.From["from"] = b.Upstream, versionOrigin(b)
	d.Config.To, d.From["to"] = a.Upstream, versionOrigin(a)
	if d.After == nil {
		d.From["to"] += "; one file: the switch keeps the version (give the file after the edit for an upgrade)"
	}
	d.addNotes(b.notes())
	if a.At != b.At {
		d.addNotes(a.notes())
	}
	if n := minors(b.Upstream, a.Upstream); n > 1 {
		d.note(a.At, "%s → %s raises %d minors at once: Kubernetes is upgraded one minor at a time, and handover rehearses N → N or N → N+1", b.Upstream, a.Upstream, n)
	}
}

func versionOrigin(v Version) string {
	if v.Stripped == "" {
		return fmt.Sprintf("%s (%s)", v.Given, v.At)
	}
	return fmt.Sprintf("%s, %s's build of it: %s stripped (%s)", v.Given, v.Distro, v.Stripped, v.At)
}

// provider is the provider whose code runs the cluster's cloud on these
// versions: its own code where handover builds it, else an imitation of
// it, else none (the simulated provider, said in a note).
func (d *Description) provider(ev cloudEvidence) {
	cloud := ev.cloud
	if cloud == "" || d.Config.From == "" {
		return
	}
	var tried []string
	for _, p := range providers.OfCloud(cloud) {
		s := migrate.DefaultSpec(d.Config.Procedure)
		s.From, s.To, s.Flavour = d.Config.From, d.Config.To, d.Config.Flavour
		err := s.SetCloudProfile(p.Name())
		if err == nil {
			d.Config.Provider, d.From["provider"] = p.Name(), fmt.Sprintf("the cluster's cloud is %s; on %s → %s the %s provider runs %s", cloud, s.From, s.To, p.Name(), p.Runs())
			return
		}
		tried = append(tried, err.Error())
	}
	d.note(Where{Source: d.Before.Source}, "provider not set: no provider handover has runs %s on %s → %s (%s); the rehearsal runs handover's simulated provider",
		cloud, d.Config.From, d.Config.To, strings.Join(tried, "; "))
}

// leaderMigration is each side's leader migration as the files set it:
// --enable-leader-migration without a file is the built-in default.
func (d *Description) leaderMigration(cloudEvidence) {
	kcm := d.firstLM(func(c *Cluster) LeaderMigration { return c.KCMLeaderMigration })
	if kcm.At.Source == "" {
		d.note(Where{Source: d.Before.Source}, "kube-controller-manager has no enable-leader-migration: the procedure enables it (its step 1), with the built-in default where the lint finds it safe")
	}
	ccm := d.firstLM(func(c *Cluster) LeaderMigration {
		if c.Chart == nil {
			return LeaderMigration{}
		}
		return c.Chart.LeaderMigration
	})
	for _, side := range []struct {
		name string
		lm   LeaderMigration
	}{{migrate.SideKCM, kcm}, {migrate.SideCCM, ccm}} {
		if !side.lm.Enabled || side.lm.Config != "" {
			continue // a file on the nodes is noted where it is named
		}
		if d.Config.LeaderMigration == nil {
			d.Config.LeaderMigration = map[string]string{}
		}
		d.Config.LeaderMigration[side.name] = migrate.BuiltInDefault
		d.From["leaderMigration."+side.name] = "--enable-leader-migration without a file: the built-in default (" + side.lm.At.String() + ")"
	}
}

// firstLM is the first file's leader migration that enables it, or the
// zero value.
func (d *Description) firstLM(of func(*Cluster) LeaderMigration) LeaderMigration {
	for _, c := range d.files() {
		if lm := of(c); lm.Enabled {
			return lm
		}
	}
	return LeaderMigration{}
}

// kcmArgs are kube-controller-manager's other flags, before the edit.
func (d *Description) kcmArgs(cloudEvidence) {
	d.Config.KCMArgs = flags(d.Before.KCMArgs)
	if len(d.Config.KCMArgs) > 0 {
		d.From["kcmArgs"] = "kube-controller-manager's flags (" + d.Before.KCMArgs[0].At.String() + ")"
	}
	if d.After != nil && !slices.Equal(flags(d.After.KCMArgs), d.Config.KCMArgs) {
		d.note(Where{Source: d.After.Source}, "kube-controller-manager's flags after the edit (%v) differ from before: kcmArgs are the flags before it", flags(d.After.KCMArgs))
	}
}

// chart is the cloud-controller-manager's form and flags from the chart
// (before the edit, else after it).
func (d *Description) chart(cloudEvidence) {
	var ch *Chart
	for _, c := range d.files() {
		if c.Chart != nil {
			ch = c.Chart
			break
		}
	}
	if ch == nil {
		d.note(Where{Source: d.last().Source}, "%s: the rehearsal installs the flavour's chart as handover renders it", noChart[d.Config.Procedure])
		return
	}
	d.Config.CCM.Form, d.From["ccm"] = ch.Form, fmt.Sprintf("the %s chart%s, a %s (%s)", ch.Name, chartSource(ch), ch.Form, ch.At)
	d.Config.CCM.Replicas = ch.Replicas
	d.Config.CCMArgs = flags(ch.Args)
	if len(ch.Args) > 0 {
		d.From["ccmArgs"] = fmt.Sprintf("the %s chart's values (%s)", ch.Name, ch.At)
	}
}

// chartSource is where a chart comes from, as the HelmChart says.
func chartSource(ch *Chart) string {
	var parts []string
	for _, p := range []string{ch.Repo, ch.Version} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " of " + strings.Join(parts, " ")
}

// noChart says why a procedure's file may install no chart.
var noChart = map[string]string{
	migrate.RKE2: "no cloud-controller-manager chart in additionalManifest (installed from Rancher's UI or with Helm, or not yet)",
	migrate.RKE:  "a cluster.yml installs no chart (the runbook installs it from Rancher's UI or with Helm)",
}

// inTreeVersions notes a file whose kube-controller-manager runs an
// in-tree provider its version no longer has (the provider's profile).
func (d *Description) inTreeVersions(ev cloudEvidence) {
	cloud := ev.cloud
	for _, c := range d.files() {
		in, _ := c.inTree()
		if !in || c.Version.Upstream == "" {
			continue
		}
		p, err := profiles.Lookup(cloud, c.Version.Upstream)
		if err == nil && !p.InTree.Value {
			d.note(c.kcmProvider().At, "Kubernetes %s has no in-tree %s provider: this cluster's kube-controller-manager could not run it", c.Version.Upstream, cloud)
		}
	}
}

func (d *Description) note(at Where, format string, args ...any) {
	d.Notes = append(d.Notes, Note{At: at, Text: fmt.Sprintf(format, args...)})
}
