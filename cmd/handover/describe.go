package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/rehearsal/rancher"
)

// rancherInput is one kind of Rancher file describe reads: its flag, the
// flag of the same cluster after an edit, and its reader.
type rancherInput struct {
	flag, after, what string
	read              func(string) (*rancher.Cluster, error)
	is                error // what the reader of another kind says a file of this kind is
}

// rancherInputs are the Rancher files describe reads.
var rancherInputs = []rancherInput{
	{"rancher-cluster", "rancher-cluster-after", "an RKE2 or K3s cluster's YAML in Rancher (a provisioning.cattle.io/v1 Cluster)",
		rancher.ReadProvisioningCluster, rancher.ErrIsProvisioningCluster},
	{"rke-cluster-yml", "rke-cluster-yml-after", "an RKE cluster.yml, or Rancher's YAML of an RKE cluster",
		rancher.ReadRKEConfig, rancher.ErrIsRKEConfig},
}

func newDescribeCommand() *cobra.Command {
	paths := map[string]*string{}
	var lf liveFlags
	c := &cobra.Command{
		Use:   "describe",
		Short: "Derive a rehearsal file from your running cluster, or from Rancher's YAML of it",
		Long: `describe prints a rehearsal file for a cluster you have, which handover
rehearse --config (or --like, on the versions handover builds) reads. Each
field's comment says where it came from; the header lists what the rehearsal
does not carry, or carries changed, and why.

--kubeconfig reads a running cluster, read-only (every request is a GET;
--print-rbac prints the roles it needs): the API server's version, the
distribution (kubeadm or RKE2: a cluster whose managers run as pods; K3s runs
them in its own process and RKE as containers, which the API does not show)
and so the procedure, the cloud and
its provider from the managers' --cloud-provider and the ProviderIDs, the
control planes and workers, the cluster name, each manager's flags as it
runs, leader migration as the flags enable it, and the
cloud-controller-manager's form (static pod, DaemonSet, Deployment and its
replicas). A leader-migration configuration a ConfigMap holds is written
beside the file (--out); one on a node's disk, which the API cannot show, is
named with the field that carries it. A cloud-config is never read (it may
hold a secret). The number of zones, the node names' and ProviderIDs' forms
and the LoadBalancer Services by count are in the header.

--rancher-cluster is an RKE2 or K3s cluster (kubectl get
clusters.provisioning.cattle.io -n fleet-default NAME -o yaml);
--rke-cluster-yml an RKE cluster.yml, or Rancher's YAML of an RKE cluster
(rancher_kubernetes_engine_config). From those: Rancher's runbook (rke2 or
rke) and its flavour, the provider whose code runs that cloud on the
versions, the versions (+rke2rN, +k3sN or -rancherN-M stripped),
kube-controller-manager's flags, leader migration, and the
cloud-controller-manager's form and flags from the chart in
additionalManifest. Given the same cluster after an edit too
(--rancher-cluster-after, --rke-cluster-yml-after), describe says which step of
Rancher's runbook the edit is and what it does out of the runbook's order, and
the rehearsal goes from the version before to the version after. Only the
fields a rehearsal depends on are read, and each is checked.

A version handover has no node image of is kept as the cluster's: rehearse
--config refuses it, rehearse --like rehearses the nearest. Nothing is
written but the files, to stdout or --out.`,
		Example: `  handover describe --kubeconfig ~/.kube/prod --out prod-rehearsal
  handover describe --print-rbac --rbac-subject user:ci@example.com
  handover describe --rancher-cluster prod.yaml
  handover describe --rancher-cluster prod.yaml --rancher-cluster-after prod-step5.yaml
  handover describe --rke-cluster-yml cluster.yml --rke-cluster-yml-after cluster-step5.yml`,
		Args: cobra.NoArgs,
		// What describe refuses is in its input.
		RunE: func(cmd *cobra.Command, _ []string) error {
			isLive, err := lf.given(cmd)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			if !isLive {
				return exitcode.Wrap(exitcode.BadInput, describeRancher(cmd, paths))
			}
			for _, p := range paths {
				if *p != "" {
					return exitcode.AsBadInput(errLiveAndRancher)
				}
			}
			return lf.run(cmd)
		},
	}
	for _, in := range rancherInputs {
		paths[in.flag], paths[in.after] = new(string), new(string)
		c.Flags().StringVar(paths[in.flag], in.flag, "", in.what)
		c.Flags().StringVar(paths[in.after], in.after, "", "the same cluster after an edit, as --"+in.flag)
	}
	lf.add(c)
	return c
}

// describeRancher describes Rancher's YAML of a cluster: what it refuses
// is in its input.
func describeRancher(cmd *cobra.Command, paths map[string]*string) error {
	d, err := describeInput(paths)
	if err != nil {
		return err
	}
	return printDescription(cmd.OutOrStdout(), d)
}

// describeInput reads the one kind of Rancher file given, and the file
// after an edit if given, and describes them.
func describeInput(paths map[string]*string) (*rancher.Description, error) {
	var given []rancherInput
	for _, in := range rancherInputs {
		if *paths[in.after] != "" && *paths[in.flag] == "" {
			return nil, fmt.Errorf("--%s is the cluster after an edit: give the cluster before it with --%s", in.after, in.flag)
		}
		if *paths[in.flag] != "" {
			given = append(given, in)
		}
	}
	switch len(given) {
	case 0:
		return nil, errors.New("give the cluster's YAML: --rancher-cluster FILE (RKE2, K3s) or --rke-cluster-yml FILE (RKE)")
	case 1:
	default:
		return nil, errors.New("--rancher-cluster and --rke-cluster-yml: give one cluster's YAML, of one kind")
	}
	in := given[0]
	before, err := in.read(*paths[in.flag])
	if err != nil {
		return nil, inputError(in.flag, err)
	}
	var after *rancher.Cluster
	if p := *paths[in.after]; p != "" {
		if after, err = in.read(p); err != nil {
			return nil, inputError(in.after, err)
		}
	}
	return rancher.Describe(before, after)
}

// inputError names the flag whose file was refused and, for a file of
// the other kind, the flag that takes it.
func inputError(flag string, err error) error {
	for _, other := range rancherInputs {
		if errors.Is(err, other.is) {
			return fmt.Errorf("--%s: %w (give it with --%s)", flag, err, other.flag)
		}
	}
	return fmt.Errorf("--%s: %w", flag, err)
}

// printDescription prints the rehearsal file and, last, whether rehearse
// would take it on this machine, as a comment.
func printDescription(w io.Writer, d *rancher.Description) error {
	raw, err := d.YAML()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n%s\n", raw, d.File().Verdict("the derived rehearsal file"))
	return err
}
