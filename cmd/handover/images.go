package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/exitcode"
)

func newImagesCommand(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "images", Short: "Build node images offline"}
	var source, cache string
	var onDemand []string
	var all, kwok bool
	build := &cobra.Command{
		Use:   "build [VERSION...]",
		Short: "Build kind node images for Kubernetes versions (default: " + strings.Join(nodeimage.DefaultVersions, ", ") + ")",
		Long: `build assembles kind node images with no registry: a Debian root file system
from debootstrap, Kubernetes, etcd, CoreDNS and pause built from the Go module
proxy, and handover's pod network, all preloaded. It also loads the stand-in
for kind's control-plane balancer image.

Every artifact is cached by the hash of its inputs (under --cache), and node
images carry that hash as a label, so a re-run with nothing changed only checks.

Supported versions (--all builds every one, for the version matrix):
` + strings.Join(nodeimage.Known(), ", ") + `

--provider NAME also builds that provider's on-demand components for the
versions that have them (` + onDemandList() + `): its managers' images and
its kubelet credential provider, cached beside the node images and preloaded
into none, so the node images are the same with or without it.

--kwok also builds ` + nodeimage.KwokImage + ` (kwok, for the simulated nodes of
` + "`rehearse --scale`" + `, which otherwise builds it when first asked).`,
		RunE: failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, args []string) error {
			versions, err := imageVersions(args, all)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			plan, err := nodeimage.Plan(versions, onDemand)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			if source == "" {
				wd, _ := os.Getwd()
				if source, err = nodeimage.FindSourceDir(wd); err != nil {
					return exitcode.AsBadInput(err)
				}
			}
			b, err := nodeimage.NewBuilder(cmd.Context(), g.logger, source, cache)
			if err != nil {
				return err
			}
			names, err := b.BuildPlan(cmd.Context(), plan)
			if err != nil {
				return err
			}
			g.logger.V(0).Infof("Node images ready: %s", strings.Join(names, ", "))
			if !kwok {
				return nil
			}
			if err := b.BuildKwok(cmd.Context()); err != nil {
				return err
			}
			g.logger.V(0).Infof("kwok ready: %s", nodeimage.KwokImage)
			return nil
		}),
	}
	build.Flags().BoolVar(&all, "all", false, "build every supported version")
	build.Flags().StringSliceVar(&onDemand, "provider", nil, "also build this provider's on-demand components (repeatable)")
	build.Flags().BoolVar(&kwok, "kwok", false, "also build the kwok image scale rehearsals run")
	build.Flags().StringVar(&source, "source", "", "handover source tree (default: found from the working directory)")
	build.Flags().StringVar(&cache, "cache", nodeimage.DefaultCacheDir(), "artifact cache directory")
	c.AddCommand(build)
	return c
}

// onDemandList names each provider's releases with on-demand components.
func onDemandList() string {
	seen := map[string]bool{}
	var out []string
	for _, v := range nodeimage.Known() {
		r, _ := nodeimage.Lookup(v)
		for _, c := range r.OnDemandCCMs {
			if !seen[c.Provider] {
				seen[c.Provider] = true
				out = append(out, c.Provider+": "+strings.Join(nodeimage.OnDemandVersions(c.Provider), ", "))
			}
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}

// imageVersions are the versions build is asked for, each known.
func imageVersions(args []string, all bool) ([]string, error) {
	versions := args
	switch {
	case all && len(args) > 0:
		return nil, fmt.Errorf("give versions or --all, not both")
	case all:
		versions = nodeimage.Known()
	case len(versions) == 0:
		versions = nodeimage.DefaultVersions
	}
	for _, v := range versions {
		if _, err := nodeimage.Lookup(v); err != nil {
			return nil, err
		}
	}
	return versions, nil
}
