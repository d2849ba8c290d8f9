package live

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/rehearsal/derived"
)

const (
	kcm = "kube-controller-manager"
	ccm = "cloud-controller-manager"
)

// Description is a rehearsal derived from a running cluster: the file,
// and the files beside it that it names (by name, relative to it).
type Description struct {
	File   derived.File
	Beside map[string]string
	facts  []string
	notes  []string
	// The managers' flags as they run, and the files leader migration
	// reads (content, "" for the built-in default, absent when the API
	// cannot show it), by side: what the lint judges (Sides).
	flags   map[string][]string
	lmFiles map[string]string
	lmFrom  map[string]string // where the API showed each file
}

// Describe derives the rehearsal of cl: its versions, procedure, cloud
// and provider, shape, name, managers' flags, leader migration and the
// cloud-controller-manager's form. A cluster with no
// kube-controller-manager pod is an error: there is nothing to derive
// the procedure from.
func Describe(cl *Cluster) (*Description, error) {
	d := &Description{File: derived.File{From: map[string]string{}}, Beside: map[string]string{}, flags: map[string][]string{}, lmFiles: map[string]string{}, lmFrom: map[string]string{}}
	kcms, ccms := cl.managers(kcm), cl.managers(ccm)
	if len(kcms) == 0 {
		return nil, fmt.Errorf("%s: no kube-controller-manager among kube-system's pods: describe reads a cluster whose managers run as pods (static pods, a DaemonSet or a Deployment)", cl.Source)
	}
	c := &d.File.Config
	d.procedure(cl)
	d.versions(cl)
	d.shape(cl)
	kcmFlags := cmdline.Long(kcms[0].Args)
	var ccmFlags []string
	if len(ccms) > 0 {
		ccmFlags = cmdline.Long(ccms[0].Args)
	}
	d.flags[migrate.SideKCM], d.flags[migrate.SideCCM] = kcmFlags, ccmFlags
	ccmName := d.name(kcmFlags, ccmFlags, len(ccms) > 0)
	d.provider(cl, kcmFlags, ccmFlags)
	c.KCMArgs = d.args(kcms[0], kcmFlags, "kcmArgs")
	if len(ccms) > 0 {
		c.CCMArgs = append(d.args(ccms[0], ccmFlags, "ccmArgs"), ccmName...)
		d.ccmForm(ccms)
	}
	d.leaderMigration(migrate.SideKCM, kcms[0], kcmFlags)
	if len(ccms) > 0 {
		d.leaderMigration(migrate.SideCCM, ccms[0], ccmFlags)
	}
	d.inPlace()
	d.consistent(kcms, ccms)
	d.File.Header = d.header(cl)
	return d, nil
}

// managers are the pods of the manager named.
func (cl *Cluster) managers(name string) []Manager {
	var out []Manager
	for _, m := range cl.Managers {
		if m.Name == name {
			out = append(out, m)
		}
	}
	return out
}

func (d *Description) note(format string, args ...any) {
	d.notes = append(d.notes, fmt.Sprintf(format, args...))
}

func (d *Description) fact(format string, args ...any) {
	d.facts = append(d.facts, fmt.Sprintf(format, args...))
}

// distros are the node annotations that say which distribution made the
// cluster, and the procedure of handover's that rehearses its runbook.
var distros = []struct {
	prefix, distro, procedure string
}{
	{"rke2.io/", "RKE2", migrate.RKE2},
	{"k3s.io/", "K3s", migrate.RKE2},
	{"rke.cattle.io/", "RKE", migrate.RKE},
	{"kubeadm.alpha.kubernetes.io/", "kubeadm", migrate.TaskDoc},
}

// procedure is the runbook of the distribution the nodes' annotations
// name, else the task doc's.
func (d *Description) procedure(cl *Cluster) {
	c := &d.File.Config
	for _, ds := range distros {
		for _, n := range cl.Nodes {
			for a := range n.Annotations {
				if strings.HasPrefix(a, ds.prefix) {
					c.Procedure = ds.procedure
					d.File.From["procedure"] = fmt.Sprintf("a %s cluster (node %s: annotation %s)", ds.distro, n.Name, a)
					return
				}
			}
		}
	}
	c.Procedure = migrate.TaskDoc
	d.File.From["procedure"] = "no node carries a distribution's annotation (kubeadm's, RKE2's, K3s's, RKE's): the upstream task doc's procedure"
}

// inPlace: a single control plane is upgraded in place where the
// procedure can: replacing it would take etcd through two members, whose
// majority is two, then remove one of them (etcd's op-guide,
// runtime-configuration: "It is unsafe to remove a member from a two
// member cluster. The majority of a two member cluster is also two.").
func (d *Description) inPlace() {
	c := &d.File.Config
	if c.ControlPlanes == 1 {
		d.note("one control plane, so one kube-controller-manager: each restart of it stops the endpoint and service controllers until its own lease runs out, and a Service made meanwhile has no endpoints (a rehearsal may show it on lb-availability)")
	}
	reg, err := migrate.Lookup(c.Procedure)
	if err != nil || c.ControlPlanes != 1 || !reg.Variants.InPlace {
		return
	}
	c.InPlace = true
	d.File.From["inPlace"] = "one control plane: its static pods upgraded in place (replacing it takes etcd through two members, whose majority is two: etcd's runtime-configuration guide)"
}

var upstream = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)`)

// versions: the API server's version, both sides (the cluster as it is;
// lint --to or an edit of the file gives the next); kubelets of other
// versions are noted.
func (d *Description) versions(cl *Cluster) {
	c := &d.File.Config
	v := "v" + strings.TrimPrefix(upstream.FindString(cl.Version), "v")
	if v == "v" {
		d.note("the API server's version %q is not a Kubernetes version: from and to not derived", cl.Version)
		return
	}
	c.From, c.To = v, v
	from := "the API server's version, " + cl.Version
	if v != cl.Version {
		from += " (" + strings.TrimPrefix(cl.Version, v) + " stripped)"
	}
	d.File.From["from"] = from
	d.File.From["to"] = from + "; the cluster as it is: give the version it goes to (handover lint --kubeconfig --to)"
	kubelets := map[string][]string{}
	for _, n := range cl.Nodes {
		kubelets[n.Status.NodeInfo.KubeletVersion] = append(kubelets[n.Status.NodeInfo.KubeletVersion], n.Name)
	}
	for kv, nodes := range kubelets {
		if kv != cl.Version {
			d.note("kubelet %s on %d node(s) (%s), beside the API server's %s: the cluster is between versions; the rehearsal starts every node at %s", kv, len(nodes), firstFew(nodes), cl.Version, v)
		}
	}
}

// simulated marks the nodes kwok simulates: not machines.
const simulated = "kwok.x-k8s.io/node"

// shape is the control planes and workers, and the facts of the nodes the
// rehearsal file has no field for: zones, node names and ProviderIDs.
func (d *Description) shape(cl *Cluster) {
	c := &d.File.Config
	zones := map[string]bool{}
	var names, ids []string
	kwok := 0
	for _, n := range cl.Nodes {
		if _, ok := n.Annotations[simulated]; ok {
			kwok++
			continue
		}
		if controlPlane(n) {
			c.ControlPlanes++
		} else {
			c.Workers++
		}
		if z := n.Labels[corev1.LabelTopologyZone]; z != "" {
			zones[z] = true
		}
		names, ids = append(names, n.Name), append(ids, n.Spec.ProviderID)
	}
	d.File.From["controlPlanes"] = "the nodes labelled node-role.kubernetes.io/control-plane (or master)"
	d.File.From["workers"] = "the other nodes"
	if kwok > 0 {
		d.note("%d nodes kwok simulates (annotation %s): not counted; a rehearsal's --scale simulates a fleet beside the cluster", kwok, simulated)
	}
	d.fact("%d control planes, %d workers, in %d zone(s)", c.ControlPlanes, c.Workers, len(zones))
	if c.Workers == 0 {
		// 0 is the rehearsal file's unset value: the default's workers run
		// (the load's backends need one).
		d.note("no worker nodes: the rehearsal runs the default's %d (its load's backends run on workers)", rehearsal.Default().Workers)
	}
	d.fact("node names: %s", nameForm(names))
	d.fact("ProviderIDs: %s", idForm(ids))
}

func controlPlane(n corev1.Node) bool {
	_, cp := n.Labels["node-role.kubernetes.io/control-plane"]
	_, master := n.Labels["node-role.kubernetes.io/master"]
	return cp || master
}

// The forms node names take.
var (
	awsPrivateDNS = regexp.MustCompile(`^ip-\d+-\d+-\d+-\d+\.`)
	providerIDs   = regexp.MustCompile(`^([a-z0-9-]+)://`)
)

// nameForm says how the nodes are named: AWS's private DNS names, or
// hostnames.
func nameForm(names []string) string {
	n := 0
	for _, name := range names {
		if awsPrivateDNS.MatchString(name) {
			n++
		}
	}
	switch n {
	case 0:
		return "hostnames (e.g. " + firstFew(names) + ")"
	case len(names):
		return "AWS private DNS names (e.g. " + firstFew(names) + ")"
	}
	return fmt.Sprintf("%d of %d AWS private DNS names, the others hostnames (e.g. %s)", n, len(names), firstFew(names))
}

// idForm says which schemes the ProviderIDs have, and how many nodes have
// none yet.
func idForm(ids []string) string {
	schemes := map[string]int{}
	for _, id := range ids {
		s := "none"
		if m := providerIDs.FindStringSubmatch(id); m != nil {
			s = m[1] + "://"
		} else if id != "" {
			s = "other"
		}
		schemes[s]++
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(schemes)) {
		parts = append(parts, fmt.Sprintf("%s on %d node(s)", s, schemes[s]))
	}
	return strings.Join(parts, ", ")
}

// defaultClusterName is the managers' --cluster-name when none is given
// (k8s.io/cloud-provider v0.31 config/v1alpha1/defaults.go).
const defaultClusterName = "kubernetes"

// name is the cluster name the managers run with: the rehearsal's name
// (kubeadm gives it the kube-controller-manager as --cluster-name); a
// cloud-controller-manager (ccmRuns) that runs with another, given or
// the default, keeps its own as a flag, which name returns.
func (d *Description) name(kcmFlags, ccmFlags []string, ccmRuns bool) []string {
	c := &d.File.Config
	kn, kok := cmdline.Value(kcmFlags, "cluster-name")
	cn, cok := cmdline.Value(ccmFlags, "cluster-name")
	if kok {
		c.Name, d.File.From["name"] = kn, "kube-controller-manager's --cluster-name"
	} else {
		// It runs as the default: a CCM with another name differs from it.
		kn = defaultClusterName
		c.Name, d.File.From["name"] = kn, "kube-controller-manager gives no --cluster-name: its default, "+kn
	}
	switch {
	case !ccmRuns:
		return nil
	case !cok && kn != defaultClusterName:
		d.note("the cloud-controller-manager runs with no --cluster-name, so with the default %s, not the kube-controller-manager's %s: kept as its flag (the cloud's resources are named and tagged after it)", defaultClusterName, kn)
		return []string{"--cluster-name=" + defaultClusterName}
	case cok && kn != cn:
		d.note("the cloud-controller-manager's --cluster-name=%s differs from the kube-controller-manager's %s: kept as its flag (the cloud's resources are named and tagged after it)", cn, kn)
		return []string{"--cluster-name=" + cn}
	}
	return nil
}

// args are a manager's flags the rehearsal carries, noting those it does
// not.
func (d *Description) args(m Manager, flags []string, field string) []string {
	out, dropped := kept(m.Name, flags)
	if len(out) > 0 {
		d.File.From[field] = m.Name + "'s flags as it runs (" + m.Pod + "), less those the header lists"
	}
	for _, why := range dropped {
		d.note("%s %s", m.Name, why)
	}
	return out
}

// ccmForm is how the cloud-controller-manager runs.
func (d *Description) ccmForm(ccms []Manager) {
	c := &d.File.Config
	m := ccms[0]
	if m.Form == "" {
		d.note("the cloud-controller-manager's pod %s belongs to no DaemonSet or Deployment and is no static pod: its form not derived", m.Pod)
		return
	}
	c.CCM.Form, d.File.From["ccm"] = m.Form, "the cloud-controller-manager's "+formOrigin(m)
	if m.Form == Deployment {
		c.CCM.Replicas = m.Replicas
	}
	d.fact("cloud-controller-manager: %s, image %s", formOrigin(m), m.Image)
}

func formOrigin(m Manager) string {
	if m.Workload != "" {
		return m.Workload
	}
	return m.Form + " " + m.Pod
}

// leaderMigration is a side's leader migration as its flags enable it:
// the built-in default, or the file a ConfigMap shows, written beside the
// rehearsal file; a file the API cannot show is noted with the flag that
// gives it.
func (d *Description) leaderMigration(side string, m Manager, flags []string) {
	// A bool flag as pflag reads it: true, True, 1, t...
	v, _ := cmdline.Value(flags, "enable-leader-migration")
	if on, _ := strconv.ParseBool(v); !on {
		return
	}
	c := &d.File.Config
	if c.LeaderMigration == nil {
		c.LeaderMigration = map[string]string{}
	}
	key := "leaderMigration." + side
	file, ok := cmdline.Value(flags, "leader-migration-config")
	if !ok || file == "" {
		c.LeaderMigration[side], d.File.From[key] = migrate.BuiltInDefault, m.Name+" --enable-leader-migration without a file: the built-in default"
		d.lmFiles[side] = ""
		return
	}
	f, read := m.Files[file]
	if !read {
		d.note("%s --leader-migration-config=%s: %s, which the API cannot show: copy it beside the rehearsal file and set leaderMigration.%s to its name", m.Name, file, m.Unread[file], side)
		delete(c.LeaderMigration, side)
		return
	}
	name := "leader-migration-" + side + ".yaml"
	d.Beside[name], d.lmFiles[side], d.lmFrom[side] = f.Content, f.Content, f.From
	c.LeaderMigration[side], d.File.From[key] = name, m.Name+" --leader-migration-config="+file+": "+f.From
}

// consistent notes managers of one kind that run differently: the
// rehearsal carries the first's.
func (d *Description) consistent(groups ...[]Manager) {
	for _, ms := range groups {
		for _, m := range ms[min(1, len(ms)):] {
			if !slices.Equal(cmdline.Long(m.Args), cmdline.Long(ms[0].Args)) {
				d.note("%s %s runs with other flags than %s: the rehearsal carries %s's", m.Name, m.Pod, ms[0].Pod, ms[0].Pod)
			}
			if m.Image != ms[0].Image {
				d.note("%s %s runs %s, %s runs %s: the cluster is between versions", m.Name, m.Pod, m.Image, ms[0].Pod, ms[0].Image)
			}
		}
	}
}

// header is the file's opening comment: where it was read, the facts the
// file has no field for, and what it does not carry.
func (d *Description) header(cl *Cluster) string {
	var b strings.Builder
	fmt.Fprintf(&b, "A rehearsal derived by handover describe from the running cluster %s.\n", cl.Source)
	b.WriteString("\nThe cluster:\n")
	for _, f := range d.facts {
		b.WriteString("  - " + f + "\n")
	}
	fmt.Fprintf(&b, "  - %d Service(s) of type LoadBalancer\n", cl.LoadBalancers)
	for _, g := range cl.Gone {
		b.WriteString("  - not read: " + g + "\n")
	}
	if len(d.notes) > 0 {
		b.WriteString("\nNot carried, or carried changed:\n")
		for _, n := range d.notes {
			b.WriteString("  - " + n + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Rehearsal is the file as rehearse --config reads it from path.
func (d *Description) Rehearsal(path string) (rehearsal.Config, error) {
	return d.File.Rehearsal(path)
}

func firstFew(ss []string) string {
	const n = 3
	if len(ss) <= n {
		return strings.Join(ss, ", ")
	}
	return strings.Join(ss[:n], ", ") + ", …"
}
