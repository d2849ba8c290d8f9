package rancher

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/clusters/managers"
)

// Chart is the cloud-controller-manager chart an additionalManifest
// installs, and what its values say of the manager.
type Chart struct {
	Name, Repo, Version string
	Cloud               string
	Form                string // the chart's workload: managers.DaemonSet or Deployment
	// Args are the manager's flags the values give, but leader
	// migration's and those handover sets itself.
	Args            []Arg
	LeaderMigration LeaderMigration
	Replicas        int // 0: the chart's default
	At              Where
	// Values are the values as written, for the comparison of two files.
	Values string
}

// chartRow is what handover knows of a chart Rancher's runbooks install.
type chartRow struct {
	cloud string
	form  string
	// read reads the chart's values into the chart and notes.
	read func(values field, c *Chart, ns *notes) error
}

// charts are the charts Rancher's set-up pages install as an
// additionalManifest HelmChart, by spec.chart: the AWS chart
// (k8s.io/cloud-provider-aws charts/aws-cloud-controller-manager, a
// DaemonSet) and Azure's (sigs.k8s.io/cloud-provider-azure
// helm/cloud-provider-azure, a Deployment and the cloud-node-manager).
var charts = map[string]chartRow{
	"aws-cloud-controller-manager": {cloud: "aws", form: managers.DaemonSet, read: awsValues},
	"cloud-provider-azure":         {cloud: "azure", form: managers.Deployment, read: azureValues},
}

// helmChart is the kind of Rancher's (and RKE2's) helm-controller.
const helmChartAPI, helmChartKind = "helm.cattle.io/v1", "HelmChart"

// readManifest reads additionalManifest: its cloud-controller-manager
// chart, and a note for each other object (the rehearsal installs none).
func (c *Cluster) readManifest(rke field) error {
	m, err := rke.get("additionalManifest")
	if err != nil {
		return err
	}
	raw, err := m.str()
	if err != nil || raw == "" {
		return err
	}
	docs, err := parseDocuments(m, raw)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := c.readObject(d); err != nil {
			return err
		}
	}
	return nil
}

// readObject reads one object of the manifest.
func (c *Cluster) readObject(d field) error {
	api, kind, err := objectKind(d)
	if err != nil {
		return err
	}
	name, err := d.strAt("metadata", "name")
	if err != nil {
		return err
	}
	chart, err := d.strAt("spec", "chart")
	if err != nil {
		return err
	}
	row, ok := charts[chart]
	if api != helmChartAPI || kind != helmChartKind || !ok {
		c.Notes = append(c.Notes, Note{At: d.at(), Text: fmt.Sprintf("%s %s %s not carried: a rehearsal installs only the cloud-controller-manager's chart, as handover knows it (%s)",
			orNone(api), orNone(kind), name, strings.Join(sortedKeys(charts), ", "))})
		return nil
	}
	if c.Chart != nil {
		return d.errorf("a second cloud-controller-manager chart (%s; the first is at %s): one cluster runs one", chart, c.Chart.At)
	}
	ch := &Chart{Name: chart, Cloud: row.cloud, Form: row.form, At: d.at()}
	if ch.Repo, err = d.strAt("spec", "repo"); err == nil {
		ch.Version, err = d.strAt("spec", "version")
	}
	if err != nil {
		return err
	}
	var ns notes
	if err := readChartValues(d, ch, row, &ns); err != nil {
		return err
	}
	c.Chart, c.Notes = ch, append(c.Notes, ns...)
	return nil
}

// readChartValues reads the HelmChart's valuesContent as its row says.
// spec.set overrides values the rehearsal does not see: noted.
func readChartValues(d field, ch *Chart, row chartRow, ns *notes) error {
	set, err := d.walk("spec", "set")
	if err != nil {
		return err
	}
	if set.present() {
		ns.add(set, "not read: values set here over valuesContent are not carried")
	}
	vc, err := d.walk("spec", "valuesContent")
	if err != nil {
		return err
	}
	raw, err := vc.str()
	if err != nil || strings.TrimSpace(raw) == "" {
		return err
	}
	values, err := parseDocument([]byte(raw), vc)
	if err != nil {
		return err
	}
	ch.Values = raw
	return row.read(values, ch, ns)
}

// awsValues reads the AWS chart's values: args are the manager's flags
// (values.yaml's default: --v=2, --cloud-provider=aws); the rest places
// and permits the manager, which the procedure does.
func awsValues(values field, ch *Chart, ns *notes) error {
	args, err := values.get("args")
	if err != nil {
		return err
	}
	strs, fields, err := args.strs()
	if err != nil {
		return err
	}
	var m managerFlags
	if err := m.addArgs(strs, fields); err != nil {
		return err
	}
	ch.Args, ch.LeaderMigration = m.args, m.lm
	*ns = append(*ns, m.notes...)
	return noteOthers(values, []string{"args"}, ns)
}

// azureFlags are the Azure chart's values that become the manager's
// generic flags, as templates/cloud-provider-azure.yaml writes them
// ("--configure-cloud-routes={{ .Values.cloudControllerManager.configureCloudRoutes }}").
// Azure's own flags (--cloud-config-secret-name, --enable-dynamic-reloading)
// are no part of a rehearsal's manager.
var azureFlags = map[string]string{
	"allocateNodeCidrs":            "allocate-node-cidrs",
	"clusterCIDR":                  "cluster-cidr",
	"configureCloudRoutes":         "configure-cloud-routes",
	"leaderElect":                  "leader-elect",
	"leaderElectLeaseDuration":     "leader-elect-lease-duration",
	"leaderElectRenewDeadline":     "leader-elect-renew-deadline",
	"leaderElectRetryPeriod":       "leader-elect-retry-period",
	"logVerbosity":                 "v",
	"routeReconciliationPeriod":    "route-reconciliation-period",
	"useServiceAccountCredentials": "use-service-account-credentials",
}

// azureValues reads the Azure chart's values: cloudControllerManager's
// flag values and replicas, and infra.clusterName (--cluster-name). The
// chart has no value for leader migration: Rancher's runbook adds it with
// kubectl patch (step 4), which the cluster's YAML does not show.
func azureValues(values field, ch *Chart, ns *notes) error {
	ccm, err := values.get("cloudControllerManager")
	if err != nil {
		return err
	}
	var m managerFlags
	for _, k := range sortedKeys(azureFlags) {
		v, err := ccm.get(k)
		if err != nil {
			return err
		}
		s, err := v.scalar()
		if err != nil {
			return err
		}
		if v.present() {
			if err := m.add(v, azureFlags[k], s, false); err != nil {
				return err
			}
		}
	}
	if err := clusterName(values, &m); err != nil {
		return err
	}
	if ch.Replicas, err = replicas(ccm); err != nil {
		return err
	}
	ch.Args = m.args
	*ns = append(*ns, m.notes...)
	ns.add(values, "the chart has no value for leader migration: the runbook adds --enable-leader-migration with kubectl patch (its step 4), which this YAML does not show")
	if err := noteOthers(ccm, append(sortedKeys(azureFlags), "replicas"), ns); err != nil {
		return err
	}
	return noteOthers(values, []string{"cloudControllerManager", "infra"}, ns)
}

// clusterName reads infra.clusterName as --cluster-name, but for
// Rancher's placeholder (<cluster-name>).
func clusterName(values field, m *managerFlags) error {
	f, err := values.walk("infra", "clusterName")
	if err != nil {
		return err
	}
	s, err := f.scalar()
	switch {
	case err != nil || !f.present():
		return err
	case strings.ContainsAny(s, "<>"):
		m.notes.add(f, "%s is a placeholder: --cluster-name not carried", s)
		return nil
	}
	return m.add(f, "cluster-name", s, false)
}

// replicas reads cloudControllerManager.replicas (0 when not given).
func replicas(ccm field) (int, error) {
	f, err := ccm.get("replicas")
	if err != nil || !f.present() {
		return 0, err
	}
	s, err := f.scalar()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, f.errorf("want a number of replicas, 1 or more, got %q", s)
	}
	return n, nil
}

// noteOthers notes, in one line, the keys of values a rehearsal does not
// take (read: those it does).
func noteOthers(values field, read []string, ns *notes) error {
	keys, _, err := values.entries()
	if err != nil {
		return err
	}
	var others []string
	for _, k := range keys {
		if !slices.Contains(read, k) {
			others = append(others, k)
		}
	}
	if len(others) > 0 {
		ns.add(values, "not carried: %s (the procedure places the manager on the control planes and grants what it needs)", strings.Join(others, ", "))
	}
	return nil
}
