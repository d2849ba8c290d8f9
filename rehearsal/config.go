package rehearsal

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/yamlfields"
	"github.com/handover-sh/handover/migrate"
	_ "github.com/handover-sh/handover/migrate/procedures" // every procedure registered
	"github.com/handover-sh/handover/providers"
	_ "github.com/handover-sh/handover/providers/all" // every provider registered
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/faults"
	"github.com/handover-sh/handover/simulate/load"
	"github.com/handover-sh/handover/simulate/scale"
	"github.com/handover-sh/handover/verify/checks"
)

// Config is a rehearsal as a user writes it (flags or a YAML file).
type Config struct {
	Name      string `json:"name,omitempty"`
	Procedure string `json:"procedure,omitempty"`
	Flavour   string `json:"flavour,omitempty"`
	// Provider is the provider the simulated cloud-controller-manager
	// behaves as (azure: leader migration ignored); "" is upstream's.
	Provider      string `json:"provider,omitempty"`
	From          string `json:"from,omitempty"`
	To            string `json:"to,omitempty"`
	ControlPlanes int    `json:"controlPlanes,omitempty"`
	Workers       int    `json:"workers,omitempty"`
	InPlace       bool   `json:"inPlace,omitempty"`
	Rollback      bool   `json:"rollback,omitempty"`
	Disable       bool   `json:"disable,omitempty"`
	// CCMLast deploys the cloud-controller-manager after every
	// kube-controller-manager went external (rke2, rke).
	CCMLast    bool   `json:"ccmLast,omitempty"`
	LeaderName string `json:"leaderName,omitempty"`
	// Mistake does the procedure wrong on purpose (negative rehearsals).
	Mistake string `json:"mistake,omitempty"`
	// LeaderMigration are the user's own configurations by side (kcm,
	// ccm): a file's path (relative to the rehearsal file) or "default".
	LeaderMigration map[string]string `json:"leaderMigration,omitempty"`
	// CloudConfig are the user's own cloud-configs by side (kcm: the
	// in-tree provider's, ccm: the cloud-controller-manager's), each a
	// path relative to the rehearsal file; --provider aws only.
	CloudConfig map[string]string `json:"cloudConfig,omitempty"`
	// IAMPolicy are the user's own IAM policies by component (kcm, ccm,
	// kubelet), each a path relative to the rehearsal file; the cloud
	// refuses what a component's policy does not allow (--provider aws).
	IAMPolicy map[string]string `json:"iamPolicy,omitempty"`
	// Machines is the shape of the cluster's machines where real
	// clusters differ from kind's (--provider aws).
	Machines MachinesInput `json:"machines,omitempty"`
	// Network is the shape of the cluster's cloud network where users'
	// networks differ from a fresh one (network.go).
	Network NetworkInput `json:"network,omitempty"`
	// KCMArgs and CCMArgs are further flags (--name=value) for every
	// kube-controller-manager and every cloud-controller-manager.
	KCMArgs []string `json:"kcmArgs,omitempty"`
	CCMArgs []string `json:"ccmArgs,omitempty"`
	// CCM is how the cloud-controller-manager runs.
	CCM CCMInput `json:"ccm,omitempty"`
	// Load is a profile name (none, light, moderate, heavy).
	Load   string     `json:"load,omitempty"`
	Faults FaultInput `json:"faults,omitempty"`
	// Scale is a simulated fleet beside the cluster's real nodes.
	Scale ScaleInput `json:"scale,omitempty"`
	// ObserveAfter keeps observing this long once the procedure ended (a
	// Go duration): what a new leader does after the hand-off, such as
	// resyncing every load balancer, takes a while to show.
	ObserveAfter string `json:"observeAfter,omitempty"`
	// Intervals overrides waits by name, the procedure's and the other
	// packages' (Go durations; `handover rehearse --help` lists them with
	// their defaults; package waits).
	Intervals map[string]string `json:"intervals,omitempty"`
	// Thresholds overrides the limits the checks judge by, by name.
	Thresholds map[string]string `json:"thresholds,omitempty"`
	Out        string            `json:"out,omitempty"`
	Keep       bool              `json:"keep,omitempty"`
	Force      bool              `json:"force,omitempty"`
	// Like is the file of a cluster this rehearses on what handover
	// builds, and Approximated what it changed of it (Like).
	Like         string   `json:"-"`
	Approximated []string `json:"-"`
}

// MachinesInput is the machines' shape as written.
type MachinesInput struct {
	// SecondInterface gives every node the cluster is created with a
	// second network interface, as the VPC CNI attaches a further ENI.
	SecondInterface bool `json:"secondInterface,omitempty"`
	// KubeletNodeIP false starts the kubelets without --node-ip, as
	// cluster-api's AWS templates and kops do (nil: kind's, pinned).
	KubeletNodeIP *bool `json:"kubeletNodeIP,omitempty"`
}

// unpinned says whether the kubelets run without --node-ip.
func (m MachinesInput) unpinned() bool { return m.KubeletNodeIP != nil && !*m.KubeletNodeIP }

// validate refuses a shape on a cloud whose provider does not read it
// (providers.MachineShapes): the default provider gives a node one
// address whatever it has.
func (m MachinesInput) validate(provider string) error {
	if !m.SecondInterface && !m.unpinned() {
		return nil
	}
	if p, err := providers.Lookup(provider); err == nil {
		if _, ok := providers.As[providers.MachineShapes](p); ok {
			return nil
		}
	}
	return fmt.Errorf("machines (--second-interface, --kubelet-node-ip=false): only with --provider %s, whose own code reads a machine's interfaces; the %s provider gives every node one address",
		strings.Join(providers.NamesWith[providers.MachineShapes](), " or "), providers.Default().Name())
}

// options are the cluster options that make the shape.
func (m MachinesInput) options() []cloudcluster.Option {
	var out []cloudcluster.Option
	if m.SecondInterface {
		out = append(out, cloudcluster.WithSecondInterfaces())
	}
	if m.unpinned() {
		out = append(out, cloudcluster.WithoutNodeIP())
	}
	return out
}

// CCMInput is the cloud-controller-manager's form as written: a form
// (static-pod, daemonset, deployment) with replicas, or the user's own
// manifest (a path relative to the rehearsal file).
type CCMInput struct {
	Form     string `json:"form,omitempty"`
	Replicas int    `json:"replicas,omitempty"`
	Manifest string `json:"manifest,omitempty"`
}

// ScaleInput is a simulated fleet as written: Nodes (0 = none), and what
// else is not given takes its default for that many nodes.
type ScaleInput struct {
	Nodes       int      `json:"nodes,omitempty"`
	Services    *int     `json:"services,omitempty"`
	JoinEvery   string   `json:"joinEvery,omitempty"`
	ThrottleQPS *float64 `json:"throttleQPS,omitempty"`
}

// FaultInput is a fault as written: a name, and optionally when.
type FaultInput struct {
	Name     string `json:"name,omitempty"`
	Step     string `json:"step,omitempty"`
	Delay    string `json:"delay,omitempty"`
	Duration string `json:"duration,omitempty"`
}

// OutputDir is where rehearsals write by default: not a source package
// (Go's tools skip directories whose names start with "_").
const OutputDir = "_output"

// Default is `handover rehearse` with no flags.
func Default() Config {
	d := migrate.DefaultSpec(migrate.TaskDoc)
	return Config{Name: topology.DefaultName, Procedure: d.Procedure, From: d.From, To: d.To, ControlPlanes: 3, Workers: 2,
		LeaderName: d.LeaderName, Load: "moderate", Faults: FaultInput{Name: faults.None}, Out: OutputDir}
}

// ReadFile reads a rehearsal file over the defaults; unknown fields are
// errors, and so is a file that sets nothing (an empty rehearsal is
// `handover rehearse` with no --config). The file is a regular file of at
// most boundedfile.ConfigLimit: a few dozen lines are written by hand.
func ReadFile(path string) (Config, error) {
	raw, err := boundedfile.Read(path, boundedfile.ConfigLimit)
	if err != nil {
		return Config{}, fmt.Errorf("reading rehearsal file: %w", err)
	}
	return Parse(raw, path)
}

// Parse reads a rehearsal file's content, raw, as ReadFile reads the file
// at path: over the defaults, strictly, its paths relative to path's
// directory. A rehearsal file printed for a user (describe) is checked
// through it, as rehearse will read it.
func Parse(raw []byte, path string) (Config, error) {
	var fields map[string]any
	if err := yaml.Unmarshal(raw, &fields); err == nil && len(fields) == 0 {
		return Config{}, fmt.Errorf("rehearsal file %s sets nothing: write its fields (`handover rehearse --help`), or run `handover rehearse` without --config for the default rehearsal", path)
	}
	c := Default()
	if err := yamlfields.UnmarshalStrict(raw, path, &c); err != nil {
		return Config{}, fmt.Errorf("rehearsal file %w", err)
	}
	for side, p := range c.LeaderMigration {
		if p != migrate.BuiltInDefault && !filepath.IsAbs(p) {
			c.LeaderMigration[side] = filepath.Join(filepath.Dir(path), p)
		}
	}
	for _, files := range []map[string]string{c.CloudConfig, c.IAMPolicy} {
		for side, p := range files {
			if !filepath.IsAbs(p) {
				files[side] = filepath.Join(filepath.Dir(path), p)
			}
		}
	}
	if p := c.CCM.Manifest; p != "" && !filepath.IsAbs(p) {
		c.CCM.Manifest = filepath.Join(filepath.Dir(path), p)
	}
	return c, nil
}

// Plan is a validated rehearsal.
type Plan struct {
	Config       Config
	Spec         migrate.Spec
	Procedures   []*migrate.Procedure
	Topology     topology.Topology
	Load         load.Profile
	Scale        scale.Profile
	Fault        faults.Spec
	ObserveAfter time.Duration
	// Thresholds the checks judge by, as written, validated.
	Thresholds map[string]string
}

// Validate checks everything before anything runs and resolves the
// procedure, load profile and fault schedule.
func (c Config) Validate() (*Plan, error) {
	s := migrate.DefaultSpec(c.Procedure)
	s.Cluster, s.From, s.To, s.ControlPlanes, s.Flavour = c.Name, c.From, c.To, c.ControlPlanes, c.Flavour
	if c.LeaderName != "" {
		s.LeaderName = c.LeaderName
	}
	s.Variant = migrate.Variant{InPlace: c.InPlace, Rollback: c.Rollback, Disable: c.Disable, CCMLast: c.CCMLast}
	s.Mistake = c.Mistake
	if err := cloudcluster.ValidateProvider(c.Provider); err != nil {
		return nil, fmt.Errorf("--provider (provider): %w", err)
	}
	if err := s.SetCloudProfile(c.Provider); err != nil {
		return nil, err
	}
	if err := c.Machines.validate(c.Provider); err != nil {
		return nil, err
	}
	if err := c.Network.validate(c.Provider); err != nil {
		return nil, err
	}
	s.KCMArgs, s.CCMArgs = c.KCMArgs, c.CCMArgs
	s.CCMForm, s.CCMReplicas = c.CCM.Form, c.CCM.Replicas
	if c.CCM.Manifest != "" {
		m, err := migrate.ReadCCMManifest(c.CCM.Manifest)
		if err != nil {
			return nil, fmt.Errorf("ccm.manifest: %w", err)
		}
		s.CCMManifest = m
	}
	for _, f := range []struct {
		name  string
		sides map[string]string
		set   func([]string) error
	}{{"leaderMigration", c.LeaderMigration, s.SetUserConfigs}, {"cloudConfig", c.CloudConfig, s.SetCloudConfigs}} {
		args, err := sideArgs(f.sides)
		if err == nil {
			err = f.set(args)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if err := s.SetPolicies(keyedArgs(c.IAMPolicy)); err != nil {
		return nil, fmt.Errorf("iamPolicy: %w", err)
	}
	if c.Force {
		if err := s.RehearsableCloudConfigs(); err != nil {
			return nil, err
		}
	}
	intervals, err := c.intervals()
	if err != nil {
		return nil, err
	}
	s.Intervals = intervals
	p, err := migrate.Build(s)
	if err != nil {
		return nil, err
	}
	s = p.Spec
	procs := []*migrate.Procedure{p}
	if s.Variant.Rollback {
		// A rollback needs the migration it undoes: rehearse both.
		fwd := s
		fwd.Variant.Rollback = false
		first, err := migrate.Build(fwd)
		if err != nil {
			return nil, err
		}
		procs = []*migrate.Procedure{first, p}
	}
	topo := topology.Default()
	topo.Name, topo.ControlPlanes, topo.Workers, topo.Kubernetes = s.Cluster, s.ControlPlanes, c.Workers, s.From
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	prof, err := load.Lookup(c.Load)
	if err != nil {
		return nil, err
	}
	if prof.Services+prof.NodeJoins > 0 && c.Workers < 1 {
		return nil, fmt.Errorf("load %s needs at least one worker for its backends: use --workers 1 or more, or --load none", prof.Name)
	}
	if s.CCMReplicas > s.ControlPlanes {
		return nil, fmt.Errorf("--ccm-replicas (ccm.replicas) %d: at most one per control plane (never two on a node), so at most %d here", s.CCMReplicas, s.ControlPlanes)
	}
	m, err := machine()
	if err != nil {
		return nil, err
	}
	if err := Peak(topo.ControlPlanes, topo.Workers, prof).Fit(m); err != nil {
		return nil, err
	}
	fault, err := c.fault(procs)
	if err != nil {
		return nil, err
	}
	fleet, err := c.scale(fault, m)
	if err != nil {
		return nil, err
	}
	if !fleet.None() {
		topo.PodSubnet = scalePodSubnet
	}
	if c.Out == "" {
		return nil, fmt.Errorf("--out: a directory for the reports is needed")
	}
	after, err := c.observeAfter()
	if err != nil {
		return nil, err
	}
	thresholds, err := Thresholds(s, c.Thresholds)
	if err != nil {
		return nil, err
	}
	return &Plan{Config: c, Spec: s, Procedures: procs, Topology: topo, Load: prof, Scale: fleet, Fault: fault, ObserveAfter: after, Thresholds: thresholds}, nil
}

// Thresholds are the thresholds a run records: those given, validated,
// and max-gap derived from the leader-election flags in force when it is
// not given (with its basis, which the report prints).
func Thresholds(s migrate.Spec, given map[string]string) (map[string]string, error) {
	cfg := checks.DefaultConfig(nil)
	for _, name := range slices.Sorted(maps.Keys(given)) {
		if err := cfg.Set(name, given[name]); err != nil {
			return nil, fmt.Errorf("thresholds: %w", err)
		}
	}
	out, err := routeSettle(s, cfg, maps.Clone(given))
	if err != nil {
		return nil, err
	}
	d, basis := s.MaxGap()
	if _, set := given["max-gap"]; set || d == 0 {
		return out, nil
	}
	if err := cfg.Set("max-gap", d.String()); err != nil {
		return nil, fmt.Errorf("the leader-election flags give a coverage-gap threshold of %s: %w (a rehearsal file's thresholds: {max-gap: …} judges by another)", basis, err)
	}
	if out == nil {
		out = map[string]string{}
	}
	out["max-gap"], out["max-gap"+checks.BasisSuffix] = d.String(), basis
	return out, nil
}

// routeSettle adds to out (the thresholds given) route-settle, when not
// given, for a provider that batches its route writes: the checks' three
// reconciliations plus a batch.
func routeSettle(s migrate.Spec, cfg checks.Config, out map[string]string) (map[string]string, error) {
	batch := s.RouteBatch()
	if _, set := out["route-settle"]; set || batch == 0 {
		return out, nil
	}
	d := cfg.RouteSettle + batch
	if err := cfg.Set("route-settle", d.String()); err != nil {
		return nil, fmt.Errorf("thresholds: route-settle from the provider's batching of route writes: %w", err)
	}
	if out == nil {
		out = map[string]string{}
	}
	out["route-settle"] = d.String()
	out["route-settle"+checks.BasisSuffix] = fmt.Sprintf("%s: three route reconciliations (%s) + the provider's route writes batched every %s", d, cfg.RouteSettle, batch)
	return out, nil
}

// scalePodSubnet is the pod network of a cluster with a simulated fleet:
// room for a /24 per node for two thousand nodes (the default /16 holds
// 256), clear of the virtual instances' addresses.
const scalePodSubnet = "10.240.0.0/13"

// machine is the host the cluster and a simulated fleet must fit on.
var machine = scale.ThisMachine

// scale resolves the simulated fleet and checks it fits the machine m and
// the rest of the plan.
func (c Config) scale(fault faults.Spec, m scale.Machine) (scale.Profile, error) {
	in := c.Scale
	p := scale.ForNodes(in.Nodes)
	if in.Services != nil {
		p.Services = *in.Services
	}
	if in.ThrottleQPS != nil {
		p.ThrottleQPS = *in.ThrottleQPS
	}
	if in.JoinEvery != "" {
		d, err := fileDuration("scale.joinEvery", in.JoinEvery)
		if err != nil {
			return p, err
		}
		p.JoinEvery = d
	}
	if err := p.Validate(m); err != nil {
		return p, err
	}
	if !p.None() && c.Workers < 1 {
		return p, fmt.Errorf("--scale: simulated nodes register as the real workers' kubelets do; give --workers 1 or more")
	}
	if !p.None() && p.ThrottleQPS > 0 && fault.Cloud() {
		return p, fmt.Errorf("--scale with the fault %s: the fleet throttles the cloud for the whole run and the fault sets the cloud's knobs too; give --scale-throttle 0 (scale.throttleQPS: 0) or rehearse them apart", fault.Name)
	}
	return p, nil
}

func (c Config) observeAfter() (time.Duration, error) {
	return fileDuration("observeAfter", c.ObserveAfter)
}

func (c Config) fault(procs []*migrate.Procedure) (faults.Spec, error) {
	name := c.Faults.Name
	if name == "" {
		name = faults.None
	}
	f, err := faults.Lookup(name)
	if err != nil {
		return f, err
	}
	f.Step = c.Faults.Step
	for field, d := range map[string]*time.Duration{"delay": &f.Delay, "duration": &f.Duration} {
		v := map[string]string{"delay": c.Faults.Delay, "duration": c.Faults.Duration}[field]
		if v == "" {
			continue
		}
		if *d, err = fileDuration("faults."+field, v); err != nil {
			return f, err
		}
	}
	var steps []string
	for _, p := range procs {
		for _, s := range p.Steps {
			steps = append(steps, s.Name)
		}
	}
	if err := f.Validate(steps); err != nil {
		return f, err
	}
	return f, nil
}

// String describes the plan in one line.
func (p *Plan) String() string {
	var names []string
	for _, pr := range p.Procedures {
		names = append(names, pr.Name)
	}
	fleet := ""
	if !p.Scale.None() {
		fleet = fmt.Sprintf(" + %d simulated", p.Scale.Nodes)
	}
	return fmt.Sprintf("%s on %d control planes + %d workers%s, %s → %s, load %s, faults %s",
		strings.Join(names, " then "), p.Topology.ControlPlanes, p.Topology.Workers, fleet, p.Spec.From, p.Spec.To, p.Load.Name, p.Fault)
}

func (c Config) intervals() (migrate.Intervals, error) {
	out := migrate.Intervals{}
	for name, v := range c.Intervals {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("intervals: %s: %w", name, err)
		}
		out[name] = d // its range is the waits table's (Validate)
	}
	return out, out.Validate()
}

// keyedArgs are KEY=VALUE arguments of a map, in key order (the spec
// judges the keys).
func keyedArgs(m map[string]string) []string {
	var args []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		args = append(args, k+"="+m[k])
	}
	return args
}

// sideArgs are a file's paths by side as the flags give them (side=path),
// refusing a key that is not a side.
func sideArgs(sides map[string]string) ([]string, error) {
	var args []string
	for _, side := range slices.Sorted(maps.Keys(sides)) {
		if side != migrate.SideKCM && side != migrate.SideCCM {
			return nil, fmt.Errorf("%q is not a side: use %s or %s", side, migrate.SideKCM, migrate.SideCCM)
		}
		args = append(args, side+"="+sides[side])
	}
	return args, nil
}
