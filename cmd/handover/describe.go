package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/rehearsal"
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
	c := &cobra.Command{
		Use:   "describe",
		Short: "Derive a rehearsal file from Rancher's YAML of your cluster, and place an edit of it in the runbook",
		Long: `describe reads the YAML Rancher keeps of a cluster and prints a rehearsal file
for it, which handover rehearse --config reads: Rancher's runbook (rke2 or rke)
and its flavour from the cloud provider, the provider whose code runs that
cloud on the versions, the Kubernetes versions (Rancher's +rke2rN, +k3sN or
-rancherN-M stripped), kube-controller-manager's flags, leader migration as
the managers' flags enable it, and the cloud-controller-manager's form and
flags from the chart in additionalManifest. Each field's comment says where it
came from; the header lists what the files say that the rehearsal does not
carry, or carries changed, and why. A version handover has no node image of
is kept as the cluster's, and rehearse refuses it until you choose one.

--rancher-cluster is an RKE2 or K3s cluster (kubectl get
clusters.provisioning.cattle.io -n fleet-default NAME -o yaml);
--rke-cluster-yml an RKE cluster.yml, or Rancher's YAML of an RKE cluster
(rancher_kubernetes_engine_config). Given the same cluster after an edit too
(--rancher-cluster-after, --rke-cluster-yml-after), describe says which step of
Rancher's runbook the edit is and what it does out of the runbook's order, and
the rehearsal goes from the version before to the version after.

Only the fields a rehearsal depends on are read, and each is checked; the rest
of Rancher's schema is left alone. Nothing is written but the file, to stdout.`,
		Example: `  handover describe --rancher-cluster prod.yaml
  handover describe --rancher-cluster prod.yaml --rancher-cluster-after prod-step5.yaml
  handover describe --rke-cluster-yml cluster.yml --rke-cluster-yml-after cluster-step5.yml`,
		Args: cobra.NoArgs,
		// What describe refuses is in its input.
		RunE: failsAs(exitcode.BadInput, func(cmd *cobra.Command, _ []string) error {
			d, err := describeInput(paths)
			if err != nil {
				return err
			}
			return printDescription(cmd.OutOrStdout(), d)
		}),
	}
	for _, in := range rancherInputs {
		paths[in.flag], paths[in.after] = new(string), new(string)
		c.Flags().StringVar(paths[in.flag], in.flag, "", in.what)
		c.Flags().StringVar(paths[in.after], in.after, "", "the same cluster after an edit, as --"+in.flag)
	}
	return c
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
	verdict := "# handover rehearse --config accepts this file here: "
	cfg, err := d.Rehearsal()
	var p *rehearsal.Plan
	if err == nil {
		p, err = cfg.Validate()
	}
	if err != nil {
		verdict = "# handover rehearse --config refuses this file as it is: " + strings.Join(strings.Fields(err.Error()), " ")
	} else {
		verdict += p.String()
	}
	_, err = fmt.Fprintf(w, "%s\n%s\n", raw, verdict)
	return err
}
