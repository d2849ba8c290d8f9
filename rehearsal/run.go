package rehearsal

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/handover-sh/handover/verify/checks"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/selfusage"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/faults"
	"github.com/handover-sh/handover/simulate/load"
	"github.com/handover-sh/handover/simulate/scale"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/observe"
	"github.com/handover-sh/handover/waits"
)

// Options say how to run a plan.
type Options struct {
	Logger log.Logger
	// Self is the handover binary (it serves the cluster's simcloud).
	Self string
	// Source is the handover source tree the node images are built from.
	Source string
	// Handover is the running handover's version, which the reports name
	// as their judge.
	Handover string
}

// Result is what a rehearsal found.
type Result struct {
	Dir      string
	Report   *reports.Report // nil when the run stopped before the checks
	Load     load.Summary
	Fleet    scale.Summary
	Duration time.Duration
}

// ErrChecksFailed is returned (wrapped) when the rehearsal ran and a check
// failed.
var ErrChecksFailed = reports.ErrChecksFailed

// Run rehearses the plan: it builds what images are missing, creates the
// cluster, prepares and starts the load, observes, runs the procedures with
// the fault armed, then stops everything, checks and writes the reports
// into the plan's out directory. Clusters of earlier runs that died
// without cleaning up are removed first. Cluster logs are collected when
// anything failed; the cluster is deleted unless the plan keeps it (first
// of all when ctx is cancelled). A run that stops before its checks judge
// still writes its reports, with the phase it stopped in as their one
// failure (Stopped), before the cluster is deleted: a CI runner may kill
// the process while it deletes. The error is classed (internal/exitcode)
// by the phase that failed.
func Run(ctx context.Context, p *Plan, o Options) (res *Result, err error) {
	start := time.Now()
	// Its own cost counts from here, whatever the process ran before.
	mark := selfusage.Now()
	res = &Result{Dir: p.Config.Out}
	logger := o.Logger
	// The rehearsal file's intervals: reach every package that waits.
	ctx = waits.WithOverrides(ctx, p.Spec.Intervals)
	if err := privatefs.MkdirAllMode(p.Config.Out, 0o755); err != nil {
		return res, exitcode.AsInfrastructure(err)
	}
	logger.V(0).Infof("Rehearsal: %s", p)
	stop := func(err error) error {
		return Stopped(p.Config.Out, p.Config.like(About(p.Spec, o.Handover)), stoppedIn(err), start, err, logger)
	}
	kubeconfig := filepath.Join(p.Config.Out, "kubeconfig")
	cluster, err := setUp(ctx, p, o, kubeconfig)
	if err != nil {
		return res, stop(err)
	}
	defer func() {
		finisher{p: p, cluster: cluster, kubeconfig: kubeconfig, self: o.Self, logger: logger}.finish(ctx, err != nil)
		res.Duration = time.Since(start)
		logger.V(0).Infof("Rehearsal finished in %s", res.Duration.Round(time.Second))
	}()
	if err = rehearse(ctx, p, o, res, mark); err != nil && res.Report == nil {
		err = stop(err)
	}
	return res, err
}

// setUp readies what the rehearsal runs on: no cluster of a dead run left,
// the images built, the user's manager flags known to their binaries, and
// the cluster created.
func setUp(ctx context.Context, p *Plan, o Options, kubeconfig string) (*kindcluster.Cluster, error) {
	if _, err := cloudcluster.Prune(ctx, o.Logger); err != nil {
		return nil, phasePrune.fail(err)
	}
	// A name already taken is refused before the images are built.
	if err := kindcluster.CheckFree(p.Topology.Name); err != nil {
		return nil, phaseCluster.fail(nameInput(err))
	}
	if err := buildImages(ctx, o.Logger, o.Source, !p.Scale.None(), p.Spec.CloudProfile, p.Spec.From, p.Spec.To); err != nil {
		return nil, phaseImages.fail(err)
	}
	// The user's manager flags, asked of the binaries just built, before
	// any cluster exists.
	if err := p.Spec.RequireFlags(ctx, nodeimage.DefaultCacheDir()); err != nil {
		return nil, phaseFlags.fail(err)
	}
	cluster, err := cloudcluster.Create(ctx, p.Topology, cloudcluster.InTree, cloudcluster.DaemonSet,
		kindcluster.CreateOptions{Logger: o.Logger, KubeconfigPath: kubeconfig}, o.Self, append(append(clusterOptions(p.Spec), p.Config.Machines.options()...), p.Config.Network.options()...)...)
	return cluster, phaseCluster.fail(nameInput(err))
}

// nameInput classes a cluster name already taken as the user's input (the
// rehearsal's --name), whatever phase it stopped.
func nameInput(err error) error {
	if errors.Is(err, kindcluster.ErrClusterExists) {
		return exitcode.AsBadInput(err)
	}
	return err
}

func rehearse(ctx context.Context, p *Plan, o Options, res *Result, mark selfusage.Mark) error {
	logger := o.Logger
	path := filepath.Join(p.Config.Out, timelineFile)
	_ = os.Remove(path) // a rehearsal starts a fresh timeline
	tl, err := timeline.Create(path)
	if err != nil {
		return phaseSetup.fail(err)
	}
	defer tl.Close()
	if len(p.Thresholds) > 0 {
		if err := tl.Write(timeline.Event{Source: "rehearsal", Kind: timeline.Thresholds, Attrs: p.Thresholds}); err != nil {
			return phaseSetup.fail(err)
		}
	}
	self := selfusage.StartFrom(ctx, tl, 5*time.Second, func() []int {
		if pid, ok := cloudcluster.ServerPID(p.Spec.Cluster); ok {
			return []int{pid}
		}
		return nil
	}, mark)
	defer self.Stop()
	kc, err := cloudcluster.Open(p.Spec.Cluster, logger)
	if err != nil {
		return phaseSetup.fail(err)
	}
	env, err := migrate.NewEnv(p.Spec, kc, logger, tl)
	if err != nil {
		return phaseSetup.fail(err)
	}
	env.Force = p.Config.Force
	if env.Spec, err = migrate.Resolve(ctx, env); err != nil {
		return phaseSetup.fail(err)
	}
	if err := writeProviderCode(tl, env.Spec); err != nil {
		return phaseSetup.fail(err)
	}
	cloud, err := cloudcluster.ClientIfAny(p.Spec.Cluster, "handover-load")
	if err != nil {
		return phaseSetup.fail(err)
	}
	rc, err := kc.RESTConfigContext(ctx)
	if err != nil {
		return phaseSetup.fail(fmt.Errorf("the load's client configuration: %w", err))
	}
	lo := load.Options{Client: env.Client, REST: rc, Cluster: kc, Cloud: cloud, Timeline: tl, Logger: logger,
		HandedOff: handedOff(env.Client, env.Spec.LeaderName, env.Spec.CCMTakesMigrationLease())}
	if reg, ok := env.Spec.Registry(); ok {
		lo.PullImage, lo.PullCredentials = reg.RegistryImage(), reg.KubeletCredentialFlags
	}
	if err := load.Prepare(ctx, lo, p.Load); err != nil {
		return phaseSetup.fail(fmt.Errorf("preparing the load: %w", err))
	}
	if lag := env.Spec.NodeMetadataLag(); lag > 0 && p.Load.Services > 0 {
		logger.V(0).Infof(" • Letting the Nodes' cloud metadata settle after the load's load balancers (%s: the provider's kubelets show a change that late) ...", lag)
		if err := sleepCtx(ctx, lag); err != nil {
			return phaseSetup.fail(err)
		}
	}
	ob, err := Observe(ctx, kc, env, tl)
	if err != nil {
		return phaseSetup.fail(err)
	}
	if err := ob.WaitSynced(ctx, waits.Of(ctx, WaitObserved)); err != nil {
		logger.Warnf("observers: %v; the procedure starts anyway (the node checks then have no state from before it)", err)
	}
	// The fleet comes up observed: its nodes' registrations are the
	// in-tree half of what a scale rehearsal measures.
	fleet, err := prepareFleet(ctx, p, kc, rc, env, tl, logger)
	if err != nil {
		ob.Stop()
		return phaseSetup.fail(err)
	}
	fleet.Start(ctx)
	gen := load.Start(ctx, lo, p.Load)
	inj := faults.Start(ctx, faults.Options{Cluster: kc, Client: env.Client, Cloud: cloud, Timeline: tl, Logger: logger,
		LeaderName: env.Spec.LeaderName}, p.Fault)
	runErr := runProcedures(ctx, p.Procedures, env)
	// No node joins once the procedure ended: the last ones get the
	// observation after it to be initialised.
	res.Fleet = fleet.Stop()
	if runErr == nil {
		inj.ProcedureEnded(ctx)
		observeAfter(ctx, logger, max(p.ObserveAfter, settleAfter(p)))
	}
	faultErr := inj.Stop()
	res.Load = gen.Stop()
	logger.V(0).Infof(" • %s", res.Load)
	if line := res.Fleet.String(); line != "" {
		logger.V(0).Infof(" • %s", line)
	}
	if left := load.AwaitGone(ctx, env.Client, res.Load.Terminated, waits.Of(ctx, load.WaitNodesGone)); len(left) > 0 {
		logger.Warnf("load: the Nodes %v were still there %s after the load stopped, though their instances are terminated (the stale-node check judges it)", left, waits.Of(ctx, load.WaitNodesGone))
	}
	if err := load.Settle(ctx, env.Client, waits.Of(ctx, load.WaitSettle)); err != nil {
		logger.Warnf("load: %v", err) // lb-provision and the leak check judge what is left
	}
	ob.Stop()
	self.Stop()
	if err := writeAPIActions(tl, env.Spec); err != nil {
		logger.Warnf("%v (the cloud-api-actions check judges it unproven)", err)
	}
	if err := tl.Close(); err != nil {
		return phaseChecks.fail(exitcode.AsInfrastructure(err))
	}
	var verdict strings.Builder
	r, repErr := reports.Conclude(path, p.Config.Out, p.Config.like(About(env.Spec, o.Handover)), &verdict)
	res.Report = r
	if r == nil {
		repErr = phaseChecks.fail(repErr)
	}
	logger.V(0).Info(strings.TrimSuffix(verdict.String(), "\n"))
	return errors.Join(runErr, faultErr, res.Load.Err(), res.Fleet.Err(), repErr)
}

// observeAfter keeps the observers (and the load) going for d after the
// procedure, or until ctx ends.
func observeAfter(ctx context.Context, logger log.Logger, d time.Duration) {
	if d <= 0 {
		return
	}
	logger.V(0).Infof(" • Observing for %s after the procedure ...", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func runProcedures(ctx context.Context, procs []*migrate.Procedure, env *migrate.Env) error {
	for _, pr := range procs {
		if err := migrate.Run(ctx, pr, env, migrate.RunOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// buildImages builds the versions' node images, and the provider's
// on-demand components of those versions that have them.
func buildImages(ctx context.Context, logger log.Logger, source string, kwok bool, provider string, versions ...string) error {
	if source == "" {
		wd, _ := os.Getwd()
		s, err := nodeimage.FindSourceDir(wd)
		if err != nil {
			return err
		}
		source = s
	}
	b, err := nodeimage.NewBuilder(ctx, logger, source, nodeimage.DefaultCacheDir())
	if err != nil {
		return err
	}
	plan, err := nodeimage.Plan(versions, onDemandOf(provider, versions))
	if err != nil {
		return err
	}
	if _, err = b.BuildPlan(ctx, plan); err != nil || !kwok {
		return err
	}
	return b.BuildKwok(ctx)
}

// onDemandOf names the provider when it has on-demand components for
// any of the versions (a plan refuses a provider with none).
func onDemandOf(provider string, versions []string) []string {
	for _, v := range nodeimage.OnDemandVersions(provider) {
		if slices.Contains(versions, v) {
			return []string{provider}
		}
	}
	return nil
}

// handedOff waits until the migration lease is held by the
// cloud-controller-manager's leader (the same identity holds both), or, for
// a manager that never takes the migration lease (azure's), until it leads.
func handedOff(c kubernetes.Interface, leaderName string, viaMigrationLease bool) func(context.Context) bool {
	holder := func(ctx context.Context, name string) string {
		l, err := c.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	return func(ctx context.Context) bool {
		err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			ccm := holder(ctx, "cloud-controller-manager")
			if !viaMigrationLease {
				return ccm != "", nil
			}
			h := holder(ctx, leaderName)
			return h != "" && h == ccm, nil
		})
		return err == nil
	}
}

// Observe starts the observers on the kind cluster a migration acts on:
// its leases, its migrated controllers plus the cloud-controller-manager's
// node initialiser, its API servers' audit logs, and its simulated cloud
// when it has one.
func Observe(ctx context.Context, kc *kindcluster.Cluster, env *migrate.Env, tl *timeline.Writer) (*observe.Observer, error) {
	rest, err := kc.RESTConfigContext(ctx)
	if err != nil {
		return nil, err
	}
	var cloud observe.Cloud // stays nil (no cloud) unless it answers
	var resolve func(context.Context, string) (string, error)
	c, err := cloudcluster.ClientIfAny(kc.Name, "handover-observer")
	if err != nil {
		return nil, err
	}
	if c != nil {
		view := simCloudView{c: c, names: kc}
		cloud, resolve = view, view.ResolveLB
	}
	return observe.Start(ctx, observe.Options{
		Reach: observe.KindReach(kc, cloudcluster.AuditLogPath, clientCert(rest)), Client: env.Client, REST: rest, Cloud: cloud, Timeline: tl, Logger: env.Logger,
		ResolveLB:      resolve,
		NoTrafficLabel: scale.NoTrafficLabel,
		Leases:         []string{env.Spec.LeaderName, "kube-controller-manager", "cloud-controller-manager"},
		Controllers:    append(env.Spec.Controllers(), "cloud-node-controller"),
		ManagerLogs:    true,
	}), nil
}

// clientCert is the cluster admin's client certificate, which the managers'
// delegated authentication accepts and authorization allows /metrics for.
func clientCert(rc *rest.Config) *tls.Certificate {
	if rc == nil || len(rc.CertData) == 0 {
		return nil
	}
	c, err := tls.X509KeyPair(rc.CertData, rc.KeyData)
	if err != nil {
		return nil
	}
	return &c
}

// clusterOptions make the rehearsal's cloud: its provider, each side's
// cloud-config variables where the user gave a file, and the components'
// IAM policies.
func clusterOptions(s migrate.Spec) []cloudcluster.Option {
	policies := map[string][]byte{}
	for side, f := range s.Policies {
		policies[side] = f.Data
	}
	return []cloudcluster.Option{cloudcluster.WithProvider(s.CloudProfile),
		cloudcluster.WithCloudConfigVars(carriedVars(s, migrate.SideKCM), carriedVars(s, migrate.SideCCM)),
		cloudcluster.WithPolicies(policies)}
}

// carriedVars are a side's cloud-config variables as the rehearsal
// carries them: nil for a side without a file of the user's, never nil
// for one with a file (whose variables may all be left behind).
func carriedVars(s migrate.Spec, side string) [][2]string {
	vars, _, ok := s.CarriedCloudConfig(side)
	if ok && vars == nil {
		return [][2]string{}
	}
	return vars
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// settleAfter is how long a rehearsal observes after the procedure when
// it judges routes by a route-settle threshold (its provider's batching,
// or one given): that long, so that the routes of the last Nodes to join
// or go are judged, not left out as too young.
func settleAfter(p *Plan) time.Duration {
	cfg := checks.DefaultConfig(nil)
	if v, ok := p.Thresholds["route-settle"]; ok && cfg.Set("route-settle", v) == nil {
		return cfg.RouteSettle
	}
	return 0
}
