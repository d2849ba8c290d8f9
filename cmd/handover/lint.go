package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

func newLintCommand(g *globals) *cobra.Command {
	var files []string
	var from, to string
	var kcmArgs, ccmArgs []string
	var noCloud bool
	var provider string
	var afterSwitch bool
	var lf liveFlags
	c := &cobra.Command{
		Use:   "lint",
		Short: "Check LeaderMigrationConfiguration files against the managers that read them",
		Long: `lint checks leader-migration configuration files before anything changes:
controller names against the names each manager version really filters on
(canonical names; aliases match nothing), components, leaderName and
resourceLock identical on both sides, and the controllers both sides migrate.
Facts for Kubernetes 1.26 to 1.32 (before 1.28 the managers know only the
short names service, route, cloud-node-lifecycle). With both managers given,
it ends with its prediction: which controllers run in two managers at once,
and which in none once the version-N kube-controller-managers are gone.
With --kcm-arg/--ccm-arg it also checks the managers' flags: against the
binary of each version when the image cache has it, leader-election timings
each manager would refuse, and what both must agree on (--cluster-name,
--configure-cloud-routes, --controllers against the configuration).

--provider judges the cloud-controller-manager of a provider as its own
source builds it (its controller names, and whether it has a leader-
migration filter at all: Azure's accepts --enable-leader-migration and
ignores it); without it, handover's simulated cloud's manager, which is
upstream's.

--leader-migration-config takes kcm=FILE, ccm=FILE or a bare FILE (checked as
read by both); only kcm= and ccm= name a side, so a=b.yaml is the file
a=b.yaml. Errors exit non-zero.

--kubeconfig lints a running cluster's next step, read-only (as handover
describe reads it; describe --print-rbac prints the roles): each manager with
the flags it runs with and the leader-migration configuration a ConfigMap
holds, the kube-controller-manager at the cluster's version with leader
migration on, the cloud-controller-manager at --to, its provider's profile
from the cluster's cloud. A configuration on a node's disk is judged as the
built-in default unless --leader-migration-config gives that side.`,
		Example: "  handover lint --leader-migration-config /etc/leadermigration.conf\n" +
			"  handover lint --leader-migration-config kcm=kcm.yaml --leader-migration-config ccm=ccm.yaml --from v1.30.14 --to v1.31.4\n" +
			"  handover lint --kubeconfig ~/.kube/prod --to v1.31.4",
		Args: cobra.NoArgs,
		// What lint finds wrong is in its input: every error is bad input.
		RunE: failsAs(exitcode.BadInput, func(cmd *cobra.Command, _ []string) error {
			for _, name := range []string{"context", "no-exec"} {
				if lf.kubeconfig == "" && cmd.Flags().Changed(name) {
					return fmt.Errorf("--%s needs --kubeconfig", name)
				}
			}
			if lf.kubeconfig != "" {
				if changed := changedFlags(cmd.Flags(), "kubeconfig", "context", "no-exec", "to", "leader-migration-config", "verbosity"); len(changed) > 0 {
					return fmt.Errorf("--kubeconfig and --%s contradict: the cluster says them", strings.Join(changed, ", --"))
				}
				if !cmd.Flags().Changed("to") {
					return fmt.Errorf("--kubeconfig needs --to: the version the cluster's next step goes to")
				}
				return lintLive(cmd, &lf, to, files)
			}
			if len(files) == 0 {
				return fmt.Errorf("--leader-migration-config is required")
			}
			if !providers.IsDefault(provider) {
				if _, err := profiles.Lookup(provider, to); err != nil {
					return fmt.Errorf("--provider: %w", err)
				}
			}
			sides, err := lintSides(files, from, to, noCloud)
			if err != nil {
				return err
			}
			for _, a := range append(append([]string{}, kcmArgs...), ccmArgs...) {
				if _, _, ok := cmdline.Split(a); !ok {
					return fmt.Errorf("%q: write a manager flag as --name=value", a)
				}
			}
			for i := range sides {
				sides[i].Args = map[string][]string{lmconfig.KCM: kcmArgs, lmconfig.CCM: ccmArgs}[sides[i].Component]
				if sides[i].Component == lmconfig.CCM {
					sides[i].Provider, sides[i].AfterSwitch = provider, afterSwitch
				}
			}
			fs := append(lint.Lint(sides...), migrate.CheckSideFlags(cmd.Context(), sides, nodeimage.DefaultCacheDir(), nil)...)
			fmt.Fprint(cmd.OutOrStdout(), fs.Head(lint.Shown))
			if bothSides(sides) {
				fmt.Fprintf(cmd.OutOrStdout(), "prediction: %s", lint.Predict(lint.Migratable, sides...))
			}
			if fs.Errors() > 0 {
				return fmt.Errorf("%d error(s)", fs.Errors())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok: %d file(s), %d warning(s)\n", len(files), len(fs))
			return nil
		}),
	}
	c.Flags().StringArrayVar(&files, "leader-migration-config", nil, "[kcm=|ccm=]FILE, repeatable")
	d := migrate.DefaultSpec("")
	c.Flags().StringVar(&from, "from", d.From, "Kubernetes version N: the kube-controller-manager's (with the in-tree provider)")
	c.Flags().StringVar(&to, "to", d.To, "Kubernetes version N+1: the cloud-controller-manager's")
	c.Flags().BoolVar(&noCloud, "kcm-external", false, "the kube-controller-manager has no in-tree cloud provider")
	c.Flags().StringVar(&provider, "provider", "", "the cloud-controller-manager's provider profile: "+strings.Join(profiles.Providers(), ", ")+" (default: handover's simulated cloud)")
	c.Flags().BoolVar(&afterSwitch, "ccm-after-switch", false, "the cloud-controller-manager starts only after every kube-controller-manager runs without the in-tree provider (it then never runs beside one)")
	c.Flags().StringArrayVar(&kcmArgs, "kcm-arg", nil, "a kube-controller-manager flag as it runs (--kcm-arg=--cluster-name=prod; repeatable)")
	c.Flags().StringArrayVar(&ccmArgs, "ccm-arg", nil, "a cloud-controller-manager flag as it runs (repeatable)")
	c.Flags().StringVar(&lf.kubeconfig, "kubeconfig", "", "lint a running cluster's next step (to --to), read-only")
	c.Flags().StringVar(&lf.context, "context", "", "with --kubeconfig: the kubeconfig's context (default: its current one)")
	c.Flags().BoolVar(&lf.noExec, "no-exec", false, "with --kubeconfig: refuse a kubeconfig whose user runs an exec plugin for its credentials")
	return c
}

// bothSides: a prediction needs a manager on each side.
func bothSides(sides []lint.Side) bool {
	has := map[string]bool{}
	for _, s := range sides {
		has[s.Component] = true
	}
	return has[lmconfig.KCM] && has[lmconfig.CCM]
}

// maxLintFiles bounds --leader-migration-config: a migration has two
// sides, and each file read may be up to boundedfile.ConfigLimit.
const maxLintFiles = 8

func lintSides(files []string, from, to string, noCloud bool) ([]lint.Side, error) {
	if len(files) > maxLintFiles {
		return nil, fmt.Errorf("--leader-migration-config given %d times: at most %d (a migration has two sides; lint the rest in another run)", len(files), maxLintFiles)
	}
	var sides []lint.Side
	for _, arg := range files {
		who, path := migrate.CutSide(arg)
		cfg, err := lmconfig.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--leader-migration-config %s: %w%s", arg, err, migrate.SideHint(arg))
		}
		kcm := lint.Side{Component: lmconfig.KCM, Version: from, LeaderMigration: true, ConfigPath: path, Config: cfg, CloudProvider: "in-tree"}
		if noCloud {
			kcm.CloudProvider = ""
		}
		ccm := lint.Side{Component: lmconfig.CCM, Version: to, LeaderMigration: true, ConfigPath: path, Config: cfg}
		switch who {
		case migrate.SideKCM:
			sides = append(sides, kcm)
		case migrate.SideCCM:
			sides = append(sides, ccm)
		default: // a bare FILE: read by both
			sides = append(sides, kcm, ccm)
		}
	}
	return sides, nil
}

// lintLive lints a running cluster's next step: its managers as they run,
// the cloud-controller-manager at to; files given replace their sides'.
func lintLive(cmd *cobra.Command, lf *liveFlags, to string, files []string) error {
	d, err := lf.describe(cmd)
	if err != nil {
		return err
	}
	paths, err := migrate.CutSides("--leader-migration-config", files, false)
	if err != nil {
		return err
	}
	given := map[string]*lmconfig.Config{}
	for side, path := range paths {
		if given[side], err = lmconfig.ReadFile(path); err != nil {
			return fmt.Errorf("--leader-migration-config %s=%s: %w", side, path, err)
		}
	}
	sides, notes, err := d.Sides(to, given)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	for _, n := range notes {
		fmt.Fprintf(out, "note: %s\n", n)
	}
	fs := append(lint.Lint(sides...), migrate.CheckSideFlags(cmd.Context(), sides, nodeimage.DefaultCacheDir(), nil)...)
	fmt.Fprint(out, fs.Head(lint.Shown))
	if bothSides(sides) {
		fmt.Fprintf(out, "prediction: %s", lint.Predict(lint.Migratable, sides...))
	}
	if fs.Errors() > 0 {
		return fmt.Errorf("%d error(s)", fs.Errors())
	}
	fmt.Fprintf(out, "ok: the cluster's next step to %s, %d warning(s)\n", to, len(fs))
	return nil
}
