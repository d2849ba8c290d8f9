package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/version"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/reports"
)

// rehearseFlags are rehearse's flags: the rehearsal's fields (cfg), and
// those read into them once parsed.
type rehearseFlags struct {
	cfg                    rehearsal.Config
	file, like             string
	cfgFiles, cloudConfigs []string
	policies               []string
	scaleServices          int
	scaleThrottle          float64
	nodeIP                 bool
}

// rehearse runs the rehearsal the flags ask for. Once the output directory
// is known, every way it can fail leaves reports there: before the
// rehearsal runs, with the phase (input, preflight, setup) as their one
// failure, so a CI gate never finds no junit.xml, nor a stale one.
func (f *rehearseFlags) rehearse(cmd *cobra.Command, g *globals) error {
	start, handover := time.Now(), version.Get().String()
	stop := func(out string, about reports.About, phase string, err error) error {
		if out == "" {
			return err
		}
		return rehearsal.Stopped(out, about, phase, start, err, g.logger)
	}
	cfg, err := f.config(cmd.Flags())
	if err != nil {
		out, about := f.knownOut(cmd.Flags())
		about.Handover = handover
		return stop(out, about, "input", exitcode.AsBadInput(err))
	}
	about := cfg.About(handover)
	for _, a := range cfg.Approximated {
		g.logger.V(0).Infof("like %s: %s", cfg.Like, a)
	}
	p, err := cfg.Validate()
	if err != nil {
		return stop(cfg.Out, about, "input", exitcode.AsBadInput(err))
	}
	if err := preflight(g, p.Spec, cfg.Force); err != nil {
		return stop(cfg.Out, about, "preflight", exitcode.AsBadInput(err))
	}
	opts, err := runOptions(g, handover)
	if err != nil {
		return stop(cfg.Out, about, "setup", err)
	}
	_, err = rehearsal.Run(cmd.Context(), p, opts)
	return err
}

// knownOut is where the reports go before the rehearsal file is read, and
// what the flags say the rehearsal is: with a file, only --out says where
// ("" when not given: the file may say).
func (f *rehearseFlags) knownOut(fs *pflag.FlagSet) (string, reports.About) {
	switch {
	case f.file == "" && f.like == "":
		return f.cfg.Out, f.cfg.About("")
	case fs.Changed("out"):
		return f.cfg.Out, reports.About{Like: f.like}
	}
	return "", reports.About{}
}

// config is the rehearsal the file, or the flags, ask for.
func (f *rehearseFlags) config(fs *pflag.FlagSet) (rehearsal.Config, error) {
	cfg := f.cfg
	if f.like != "" {
		return f.likeConfig(fs)
	}
	if f.file != "" {
		// Where the reports go is not part of the rehearsal: --out
		// may place a file's reports (a CI job does).
		if changed := changedFlags(fs, "config", "verbosity", "out"); len(changed) > 0 {
			return cfg, fmt.Errorf("--config %s and --%s contradict: set them in the file instead", f.file, strings.Join(changed, ", --"))
		}
		var err error
		if cfg, err = rehearsal.ReadFile(f.file); err != nil {
			return cfg, err
		}
		if fs.Changed("out") {
			cfg.Out = f.cfg.Out
		}
	}
	if fs.Changed("scale-services") {
		cfg.Scale.Services = &f.scaleServices
	}
	if fs.Changed("scale-throttle") {
		cfg.Scale.ThrottleQPS = &f.scaleThrottle
	}
	if fs.Changed("kubelet-node-ip") {
		cfg.Machines.KubeletNodeIP = &f.nodeIP
	}
	if err := addSides(&cfg.LeaderMigration, "--leader-migration-config", f.cfgFiles, false); err != nil {
		return cfg, err
	}
	if err := addSides(&cfg.CloudConfig, "--cloud-config", f.cloudConfigs, true); err != nil {
		return cfg, err
	}
	return cfg, addKeyed(&cfg.IAMPolicy, "--iam-policy", f.policies)
}

// addKeyed reads KEY=FILE arguments into a map, each key once; the flags
// replace the file's map when given (the spec judges the keys).
func addKeyed(into *map[string]string, flag string, args []string) error {
	if len(args) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("%s %s: write KEY=FILE", flag, a)
		}
		if _, twice := m[k]; twice {
			return fmt.Errorf("%s %s: %s= is given twice: give each once", flag, a, k)
		}
		m[k] = v
	}
	*into = m
	return nil
}

// likeConfig is the rehearsal of --like's file on what handover builds;
// --out, --force and --keep may place and govern it.
func (f *rehearseFlags) likeConfig(fs *pflag.FlagSet) (rehearsal.Config, error) {
	if changed := changedFlags(fs, "like", "verbosity", "out", "force", "keep"); len(changed) > 0 {
		return f.cfg, fmt.Errorf("--like %s and --%s contradict: --like rehearses the file as your cluster is (edit a copy, or give it with --config)", f.like, strings.Join(changed, ", --"))
	}
	cfg, err := rehearsal.ReadFile(f.like)
	if err != nil {
		return cfg, err
	}
	for _, o := range []struct {
		name string
		set  func()
	}{{"out", func() { cfg.Out = f.cfg.Out }}, {"force", func() { cfg.Force = f.cfg.Force }}, {"keep", func() { cfg.Keep = f.cfg.Keep }}} {
		if fs.Changed(o.name) {
			o.set()
		}
	}
	return rehearsal.Like(cfg, f.like), nil
}

// runOptions are what a rehearsal needs of this process: its binary, which
// serves the cluster's simulated cloud, and the source tree the node
// images are built from.
func runOptions(g *globals, handover string) (rehearsal.Options, error) {
	self, err := os.Executable()
	if err != nil {
		return rehearsal.Options{}, exitcode.AsInfrastructure(err)
	}
	wd, _ := os.Getwd()
	source, err := nodeimage.FindSourceDir(wd)
	if err != nil {
		return rehearsal.Options{}, exitcode.AsBadInput(err)
	}
	return rehearsal.Options{Logger: g.logger, Self: self, Source: source, Handover: handover}, nil
}
