package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/version"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/reports"
)

// specFlags are the flags that choose a procedure and its variant.
type specFlags struct {
	spec                       migrate.Spec
	inPlace, rollback, disable bool
	ccmLast                    bool
	configs, cloudConfigs      []string
	policies                   []string
	ccmManifest, provider      string
}

const (
	kcmArgHelp      = "a flag for every kube-controller-manager, N and N+1 (--kcm-arg=--leader-elect-lease-duration=60s; repeatable; checked against each version's binary)"
	ccmReplicasHelp = "a deployment's replicas (default: one per control plane)"
	ccmArgHelp      = "a flag for every cloud-controller-manager (--ccm-arg=--concurrent-service-syncs=2; repeatable; checked against its binary)"
)

// add registers every flag of the spec: what plan and migrate take.
func (f *specFlags) add(fs *pflag.FlagSet) {
	f.addTarget(fs)
	f.addRun(fs)
}

// addTarget registers what names the cluster, the procedure whose
// controllers count as migrated and its lease: all observe reads of a
// spec.
func (f *specFlags) addTarget(fs *pflag.FlagSet) {
	d := migrate.DefaultSpec("")
	f.spec = d
	fs.StringVar(&f.spec.Procedure, "procedure", migrate.TaskDoc, "procedure: "+strings.Join(migrate.Names(), ", "))
	fs.StringVar(&f.spec.Cluster, "name", d.Cluster, "cluster name")
	fs.StringVar(&f.spec.LeaderName, "leader-name", d.LeaderName, "migration lease (leaderName of both configurations)")
}

// addRun registers, after addTarget, what only a run of the procedure
// reads: its versions, variant, mistakes and the managers' files and
// flags.
func (f *specFlags) addRun(fs *pflag.FlagSet) {
	d := f.spec
	fs.StringVar(&f.spec.From, "from", d.From, "Kubernetes version N (in-tree cloud provider)")
	fs.StringVar(&f.spec.To, "to", d.To, "Kubernetes version N+1 (cloud-controller-manager; rke2, rke: the version their switch raises to)")
	fs.StringVar(&f.spec.Flavour, "flavour", "", "the runbook's cloud: "+migrate.FlavourHelp())
	fs.StringVar(&f.provider, "provider", "", "the cloud-controller-manager's provider profile the lint judges it by: "+strings.Join(profiles.Providers(), ", ")+" (default: handover's simulated cloud, upstream's manager)")
	fs.BoolVar(&f.inPlace, "in-place", false, inPlaceHelp())
	fs.BoolVar(&f.rollback, "rollback", false, rollbackHelp("roll back from N+1 to N, one control plane at a time"))
	fs.BoolVar(&f.disable, "disable", false, disableHelp())
	fs.BoolVar(&f.ccmLast, "ccm-last", false, ccmLastHelp())
	fs.StringVar(&f.spec.Mistake, "mistake", "", "do the task doc wrong on purpose: "+strings.Join(migrate.MistakeNames(), ", ")+" (migrate and rehearse need --force past the lint)")
	fs.StringArrayVar(&f.configs, "leader-migration-config", nil, configFlagHelp)
	fs.StringArrayVar(&f.spec.KCMArgs, "kcm-arg", nil, kcmArgHelp)
	fs.StringArrayVar(&f.spec.CCMArgs, "ccm-arg", nil, ccmArgHelp)
	fs.StringVar(&f.spec.CCMForm, "ccm-form", "", ccmFormHelp())
	fs.IntVar(&f.spec.CCMReplicas, "ccm-replicas", 0, ccmReplicasHelp)
	fs.StringVar(&f.ccmManifest, "ccm-manifest", "", ccmManifestHelp())
}

// ccmFormHelp says which procedures run the cloud-controller-manager in
// which forms, from their registrations: "static-pod (default-config,
// node-ipam, taskdoc); daemonset or deployment (controllers-flag, ...)".
func ccmFormHelp() string {
	var groups []string
	byForms := map[string][]string{}
	for _, name := range migrate.Names() {
		r, _ := migrate.Lookup(name)
		forms := slices.Sorted(slices.Values(r.Managers.CCMForms))
		key := strings.Join(forms, " or ")
		if byForms[key] == nil {
			groups = append(groups, key)
		}
		byForms[key] = append(byForms[key], name)
	}
	each := make([]string, 0, len(groups))
	for _, g := range groups {
		each = append(each, g+" ("+strings.Join(byForms[g], ", ")+")")
	}
	return "how the cloud-controller-manager runs: " + strings.Join(each, "; ") + " (default: the procedure's chart, or its static pod)"
}

// cloudConfigFlagHelp() names the providers whose code reads a cloud-config.
func cloudConfigFlagHelp() string {
	return "--provider " + strings.Join(providers.NamesWith[providers.CloudConfigs](), " or ") + ": your own cloud-config (aws's INI, azure's azure.json), kcm=FILE (the in-tree provider's: kube-controller-manager N and its kubelets), ccm=FILE (the cloud-controller-manager's) or FILE (both); read as each side's provider code reads it, compared by the lint, and rehearsed with (plan says which variables)"
}

// policyFlagHelp names the providers whose cloud holds its callers to a
// permission policy.
func policyFlagHelp() string {
	return "--provider " + strings.Join(providers.NamesWith[providers.Policies](), " or ") + ": your own IAM policy (JSON) for a component, kcm=FILE (the in-tree provider's kube-controller-manager), ccm=FILE (the cloud-controller-manager) or kubelet=FILE (every kubelet, its image credential provider among them); the simulated cloud refuses what it does not allow as AWS does, the refusals in the cloud audit and the reports (repeatable)"
}

const configFlagHelp = "your own configuration for a side, installed as given: kcm=FILE or ccm=FILE, FILE \"default\" for the built-in default (repeatable; the lint runs first)"

func (f *specFlags) build() (migrate.Spec, *migrate.Procedure, error) {
	s := f.spec
	s.Variant = migrate.Variant{InPlace: f.inPlace, Rollback: f.rollback, Disable: f.disable, CCMLast: f.ccmLast}
	if err := s.SetUserConfigs(f.configs); err != nil {
		return s, nil, err
	}
	if err := s.SetCloudProfile(f.provider); err != nil {
		return s, nil, err
	}
	if err := s.SetCloudConfigs(f.cloudConfigs); err != nil {
		return s, nil, err
	}
	if err := s.SetPolicies(f.policies); err != nil {
		return s, nil, err
	}
	if f.ccmManifest != "" {
		m, err := migrate.ReadCCMManifest(f.ccmManifest)
		if err != nil {
			return s, nil, fmt.Errorf("--ccm-manifest: %w", err)
		}
		s.CCMManifest = m
	}
	p, err := migrate.Build(s)
	if err != nil {
		return s, nil, err
	}
	return p.Spec, p, nil
}

func newPlanCommand(g *globals) *cobra.Command {
	var f specFlags
	c := &cobra.Command{
		Use:   "plan",
		Short: "Print every step of a migration procedure without touching a cluster",
		Long: `plan is a dry run: it prints each step of the procedure with the exact flags,
files and manifests it applies and, for rke2 and rke, the Rancher configuration
(spec.rkeConfig... or cluster.yml) the step stands for, so the same procedure
can be followed by hand on a real cluster. It ends with the preflight lint,
and exits non-zero when the lint finds errors (migrate and rehearse would stop).`,
		Example: "  handover plan --procedure taskdoc\n  handover plan --procedure rke2 --flavour azure --disable",
		Args:    cobra.NoArgs,
		RunE: failsAs(exitcode.BadInput, func(cmd *cobra.Command, _ []string) error {
			s, p, err := f.build()
			if err != nil {
				return err
			}
			if err := migrate.WritePlan(cmd.OutOrStdout(), p, s); err != nil {
				return err
			}
			fs := append(s.Lint(), s.CheckFlags(cmd.Context(), nodeimage.DefaultCacheDir())...)
			fmt.Fprintf(cmd.OutOrStdout(), "\n## preflight lint\n\n")
			if len(fs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no findings")
			}
			fmt.Fprint(cmd.OutOrStdout(), fs.Head(lint.Shown))
			fmt.Fprintf(cmd.OutOrStdout(), "\n## what the lint predicts the managers will do\n\n%s", s.Predict())
			// As lint does: the plan is printed in full, and its errors
			// are the exit status (migrate and rehearse would stop on them).
			if n := fs.Errors(); n > 0 {
				return fmt.Errorf("preflight lint found %d error(s) in this plan: migrate and rehearse stop on them unless --force", n)
			}
			return nil
		}),
	}
	f.add(c.Flags())
	c.Flags().IntVar(&f.spec.ControlPlanes, "control-planes", 3, "number of control planes N")
	// plan and rehearse only: migrate and observe work on a cluster whose
	// cloud-configs are on its nodes since it was made.
	c.Flags().StringArrayVar(&f.cloudConfigs, "cloud-config", nil, cloudConfigFlagHelp())
	c.Flags().StringArrayVar(&f.policies, "iam-policy", nil, policyFlagHelp())
	return c
}

func newMigrateCommand(g *globals) *cobra.Command {
	var f specFlags
	var from, until, out string
	var force, observing bool
	c := &cobra.Command{
		Annotations: quietProcess,
		Use:         "migrate",
		Short:       "Run a leader-migration procedure on a cluster of the simulated cloud",
		Long: `migrate runs a procedure's steps in order on a cluster created with
` + "`handover cluster create --cloud in-tree`" + `. Each step is skipped when its
result already holds, so an interrupted run completes when run again;
--from-step and --until-step bound the run (step names: ` + "`handover plan`" + `).
The preflight lint runs first and stops the run on errors unless --force.
While it runs, observers record leases, each manager's running controllers,
cloud calls, API probes and nodes on the same timeline; the checks then write
junit.xml, summary.md and report.html next to it. It exits non-zero when the
procedure or a check failed.`,
		Example: "  handover migrate --name handover --procedure taskdoc\n  handover migrate --procedure taskdoc --until-step enable-leader-migration",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, thresholds, err := migrateInput(cmd.Context(), g, &f, force)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			if out == "" {
				out = filepath.Join(rehearsal.OutputDir, s.Procedure)
			}
			run, err := openRun(g, s, out, false)
			if err != nil {
				return exitcode.AsInfrastructure(err)
			}
			defer run.tl.Close()
			if err := run.recordThresholds(thresholds); err != nil {
				return exitcode.AsInfrastructure(err)
			}
			run.env.Force = force
			s, err = migrate.Resolve(cmd.Context(), run.env)
			if err != nil {
				return exitcode.AsInfrastructure(err)
			}
			p, err := migrate.Build(s)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			o := migrate.RunOptions{From: from, Until: until}
			if _, _, err := o.Range(p); err != nil {
				return exitcode.AsBadInput(err)
			}
			g.logger.V(0).Infof("%s (%d control planes); timeline: %s", p.Title, s.ControlPlanes, run.path)
			return runObserved(cmd, run, []*migrate.Procedure{p}, o, out, observing)
		},
	}
	f.add(c.Flags())
	c.Flags().StringVar(&from, "from-step", "", "start at this step")
	c.Flags().StringVar(&until, "until-step", "", "stop after this step")
	c.Flags().BoolVar(&force, "force", false, "run even when the preflight lint finds errors, and go on when a controller runs in two managers (the checks give the verdict)")
	c.Flags().StringVar(&out, "out", "", "directory for the timeline (appended to, so a resumed run keeps one) and the reports (default "+rehearsal.OutputDir+"/PROCEDURE)")
	c.Flags().BoolVar(&observing, "observe", true, "watch leases, managers, probes and nodes while the procedure runs, then check and report")
	return c
}

// migrateInput is the spec migrate runs and the thresholds its checks
// judge by, refused before anything changes: flags, the preflight lint,
// the managers' flags.
func migrateInput(ctx context.Context, g *globals, f *specFlags, force bool) (migrate.Spec, map[string]string, error) {
	s, _, err := f.build()
	if err != nil {
		return s, nil, err
	}
	if err := preflight(g, s, force); err != nil {
		return s, nil, err
	}
	if err := s.RequireFlags(ctx, nodeimage.DefaultCacheDir()); err != nil {
		return s, nil, err
	}
	thresholds, err := rehearsal.Thresholds(s, nil)
	return s, thresholds, err
}

// runObserved runs the procedures in turn with the observers on the same timeline,
// then checks it and writes the reports. The procedure's error comes first.
func runObserved(cmd *cobra.Command, r *opened, ps []*migrate.Procedure, o migrate.RunOptions, reportDir string, observing bool) error {
	run := func() error {
		for _, p := range ps {
			if err := migrate.Run(cmd.Context(), p, r.env, o); err != nil {
				return err
			}
		}
		return nil
	}
	if !observing {
		return run()
	}
	ob, err := r.observe(cmd.Context())
	if err != nil {
		return exitcode.AsInfrastructure(err)
	}
	runErr := run()
	ob.Stop()
	if err := r.tl.Close(); err != nil {
		return err
	}
	_, repErr := reports.Conclude(r.path, reportDir, rehearsal.About(r.env.Spec, version.Get().String()), cmd.OutOrStdout())
	if runErr != nil {
		return runErr
	}
	return repErr
}
