package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/simulate/faults"
	"github.com/handover-sh/handover/simulate/load"
	"github.com/handover-sh/handover/simulate/scale"
	"github.com/handover-sh/handover/verify/checks"
	"github.com/handover-sh/handover/waits"
)

func newRehearseCommand(g *globals) *cobra.Command {
	f := &rehearseFlags{cfg: rehearsal.Default()}
	cfg := &f.cfg
	c := &cobra.Command{
		Annotations: quietProcess,
		Use:         "rehearse",
		Short:       "Rehearse a migration end to end: images, cluster, load, procedure, faults, observers, checks, reports",
		Long: `rehearse builds the node images it needs (cached), creates a kind cluster on
the simulated cloud with the in-tree provider, puts it under load (LoadBalancer
Services created, updated and deleted; workers joined and their instances
terminated; API reads and writes), runs the procedure with a fault armed while
the observers record everything on one timeline, checks the timeline and
writes junit.xml, summary.md, report.html and timeline.jsonl into --out.
Cluster logs are collected into --out/logs when anything failed. The cluster
is deleted afterwards (also on Ctrl-C) unless --keep.

--scale N adds a simulated fleet: N nodes with no kubelet (kwok keeps them
Ready), each on a virtual instance of the cloud, with LoadBalancer Services on
them and a node joining every few seconds during the procedure, against a cloud
that throttles each caller. The cloud controllers do a large cluster's work;
the report measures how long nodes wait for their ProviderID and load
balancers for their reconciliation, in-tree and after the hand-off.

Load profiles: ` + strings.Join(load.Names(), ", ") + ` (moderate fits a 2-core machine).
Faults: ` + strings.Join(faults.Names(), ", ") + `.
A fault fires at the hand-off (both managers have a leader and the migration
lease is held), or at a step given in a rehearsal file, or with step "after"
once the procedure has ended (the rehearsal then observes a minute more).

A rehearsal file (--config) sets the same fields in YAML and is validated in
full before anything runs:

  procedure: rke2          # ` + strings.Join(migrate.Names(), ", ") + `
  flavour: aws
  from: v1.30.14
  to: v1.31.4
  controlPlanes: 3
  workers: 2
  load: moderate
  faults: {name: leader-kill, step: switch-to-external, delay: 10s}
  scale: {nodes: 250, services: 50, joinEvery: 10s, throttleQPS: 10}  # a simulated fleet
  intervals: {settle: 5m}  # the procedure's waits, by name (below)
  thresholds: {max-outage: 5s}  # the checks' limits, by name (below)
  leaderMigration: {kcm: kcm.yaml, ccm: default}  # your files, or the built-in default
  kcmArgs: [--leader-elect-lease-duration=60s, --leader-elect-renew-deadline=40s]
  ccmArgs: [--leader-elect-lease-duration=60s, --leader-elect-renew-deadline=40s]
  ccm: {form: deployment, replicas: 2}  # or {manifest: ccm.yaml}: your chart, rendered
  machines: {secondInterface: true, kubeletNodeIP: false}  # --provider aws: machines as yours are
  network: {routeTables: 2, dhcpDomain: corp.example}  # --provider aws: a network as yours is
  iamPolicy: {ccm: ccm-policy.json}  # --provider aws: a component's own IAM policy (kcm, ccm, kubelet)
  out: _output/rke2

Durations (Go durations, such as 90s or 5m; outside its range one is refused):
` + rehearsal.DurationHelp() + `

Intervals (default, what it bounds):
` + intervalHelp() + `

Thresholds (default, what it bounds):
` + checks.ThresholdHelp() + `
Unless given, max-gap follows the managers' --leader-elect-* flags: lease
duration + 4.4 retry periods (client-go's jitter) + ` + migrate.Headroom.String() + ` headroom; the report says so.

It exits 0 only when the procedure completed, the fault fired as planned and
every check passed (the other codes: handover --help). Once it knows --out,
every way it ends leaves junit.xml there: one that stops before its checks,
with one failed case naming the phase it stopped in. One refused as bad
input leaves an earlier run's reports in --out as they were, and says so.

--like FILE rehearses a file handover describe derived from your cluster on
what handover builds: each version on the nearest node image (its minor's
build, else the nearest minor's), the provider's own code where it runs on
those versions, else another provider of its cloud, else handover's simulated
provider at the cluster's versions, and the cluster scaled down to 3 control
planes and 2 workers. It says what it changed before it starts, and the
reports' header and the JUnit properties (like, approximated) say it too.
Beside it only --out, --force, --keep and --verbosity may be given.

With no flags it rehearses the upstream task doc on 3 control planes and 2
workers, v1.30.14 to v1.31.4, under moderate load.`,
		Example: "  handover rehearse\n  handover rehearse --procedure rke2 --flavour azure --out _output/rke2\n" +
			"  handover rehearse --faults leader-kill --load heavy\n  handover rehearse --config rehearsal.yaml\n" +
			"  handover rehearse --like prod-rehearsal/rehearsal.yaml   # handover describe --kubeconfig ... --out prod-rehearsal",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.rehearse(cmd, g)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.file, "config", "", "rehearsal file (YAML); other rehearsal flags then contradict it")
	fs.StringVar(&f.like, "like", "", "a rehearsal file handover describe derived from your cluster, rehearsed on the nearest versions and providers handover builds (it says what it approximates); beside it only --out, --force and --keep")
	fs.StringVar(&cfg.Procedure, "procedure", cfg.Procedure, "procedure: "+strings.Join(migrate.Names(), ", "))
	fs.StringVar(&cfg.Name, "name", cfg.Name, "cluster name")
	fs.StringVar(&cfg.From, "from", cfg.From, "Kubernetes version N (in-tree cloud provider)")
	fs.StringVar(&cfg.To, "to", cfg.To, "Kubernetes version N+1 (cloud-controller-manager; rke2, rke: the version their switch raises to)")
	fs.StringVar(&cfg.Flavour, "flavour", "", "the runbook's cloud: "+migrate.FlavourHelp())
	fs.StringVar(&cfg.Provider, "provider", "", "whose provider code the kubelets and managers run: "+providerHelp(rehearsalProviders()))
	fs.StringVar(&cfg.LeaderName, "leader-name", cfg.LeaderName, "migration lease (leaderName of both configurations)")
	fs.BoolVar(&cfg.InPlace, "in-place", false, inPlaceHelp())
	fs.BoolVar(&cfg.Rollback, "rollback", false, rollbackHelp("migrate, then roll back from N+1 to N one control plane at a time"))
	fs.BoolVar(&cfg.Disable, "disable", false, disableHelp())
	fs.BoolVar(&cfg.CCMLast, "ccm-last", false, ccmLastHelp())
	fs.StringVar(&cfg.Mistake, "mistake", "", "do the task doc wrong on purpose, to see what handover catches: "+strings.Join(migrate.MistakeNames(), ", ")+" (needs --force past the lint)")
	fs.StringArrayVar(&f.cfgFiles, "leader-migration-config", nil, configFlagHelp)
	fs.StringArrayVar(&f.cloudConfigs, "cloud-config", nil, cloudConfigFlagHelp())
	fs.StringArrayVar(&f.policies, "iam-policy", nil, policyFlagHelp())
	fs.StringArrayVar(&cfg.KCMArgs, "kcm-arg", nil, kcmArgHelp)
	fs.StringArrayVar(&cfg.CCMArgs, "ccm-arg", nil, ccmArgHelp)
	fs.StringVar(&cfg.CCM.Form, "ccm-form", "", ccmFormHelp())
	fs.IntVar(&cfg.CCM.Replicas, "ccm-replicas", 0, ccmReplicasHelp)
	fs.StringVar(&cfg.CCM.Manifest, "ccm-manifest", "", ccmManifestHelp())
	fs.BoolVar(&cfg.Machines.SecondInterface, "second-interface", false, "--provider aws: every node the cluster is created with gets a second network interface (device index 1), as the VPC CNI attaches a further ENI")
	fs.IntVar(&cfg.Network.RouteTables, "route-tables", 0, "--provider aws: how many route tables are tagged for the cluster (default one, the VPC's main table); the rest are associated with no subnet, as a table a tool tagged and left: the providers then route nothing unless their cloud-config names one (RouteTableId)")
	fs.StringVar(&cfg.Network.DHCPDomain, "dhcp-domain", "", "--provider aws: the domain-name of the VPC's DHCP options (default: the region's): the metadata service's local-hostname and hostname end in it while EC2's private DNS names keep the region's, so a kubelet named from the metadata (RKE's useInstanceMetadataHostname) takes another name than the in-tree provider gave its Node")
	fs.BoolVar(&f.nodeIP, "kubelet-node-ip", true, "--provider aws: false starts the kubelets without --node-ip, as cluster-api's AWS templates and kops do (kind always gives it): each takes every address the provider reports, in its order")
	fs.IntVar(&cfg.ControlPlanes, "control-planes", cfg.ControlPlanes, "control planes (N)")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "workers")
	fs.StringVar(&cfg.Load, "load", cfg.Load, "load profile: "+strings.Join(load.Names(), ", "))
	fs.IntVar(&cfg.Scale.Nodes, "scale", 0, "simulated nodes (kwok, each on a virtual instance of the cloud) beside the real ones, registered before the procedure")
	fs.IntVar(&f.scaleServices, "scale-services", 0, fmt.Sprintf("with --scale: LoadBalancer Services with endpoints on simulated nodes (default one per %d nodes)", scale.NodesPerService))
	fs.StringVar(&cfg.Scale.JoinEvery, "scale-join-every", "", fmt.Sprintf("with --scale: one more simulated node joins at this interval while the procedure runs (default %s; 0s: none)", scale.DefaultJoinEvery))
	fs.Float64Var(&f.scaleThrottle, "scale-throttle", 0, fmt.Sprintf("with --scale: the cloud's limit per caller, in requests a second (default %d; 0: none)", scale.DefaultThrottleQPS))
	fs.StringVar(&cfg.Faults.Name, "faults", cfg.Faults.Name, "fault injected at the hand-off: "+strings.Join(faults.Names(), ", "))
	fs.StringVar(&cfg.ObserveAfter, "observe-after", "", "keep observing this long after the procedure (e.g. 1m): a new leader's resyncs take a while to show")
	fs.StringVar(&cfg.Out, "out", cfg.Out, "directory for the timeline, the reports and, on failure, the cluster logs (with --config, instead of the file's out)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the cluster afterwards")
	fs.BoolVar(&cfg.Force, "force", false, "rehearse even when the preflight lint finds errors, and go on when a controller runs in two managers (the checks give the verdict)")
	return c
}

// changedFlags lists the flags set on the command line, but for those named.
func changedFlags(fs *pflag.FlagSet, except ...string) []string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		for _, e := range except {
			if f.Name == e {
				return
			}
		}
		out = append(out, f.Name)
	})
	return out
}

// intervalHelp lists every wait (waits: the procedures' and the other
// packages'), with its default and what it bounds.
func intervalHelp() string {
	var b strings.Builder
	table, width, owner := waits.Table(), 0, ""
	for _, w := range table {
		width = max(width, len(w.Name))
	}
	for _, w := range table {
		if w.Owner != owner {
			owner = w.Owner
			fmt.Fprintf(&b, "  %s:\n", owner)
		}
		fmt.Fprintf(&b, "    %-*s %-6s %s\n", width, w.Name, w.Default, w.Doc)
	}
	return strings.TrimRight(b.String(), "\n")
}

// addSides puts a flag's side arguments (kcm=FILE, ccm=FILE, and FILE for
// both where both is true) into the rehearsal's field of the same sides
// (empty: --config and these flags contradict).
func addSides(into *map[string]string, flag string, args []string, both bool) error {
	paths, err := migrate.CutSides(flag, args, both)
	if err != nil || len(paths) == 0 {
		return err
	}
	*into = paths
	return nil
}
