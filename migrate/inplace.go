package migrate

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/timeline"
)

// n1Images are the images an in-place upgrade needs on a version-N node.
func (s Spec) n1Images() []string {
	out := []string{nodeimage.CCMImage(s.To)}
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		out = append(out, "registry.k8s.io/"+c+":"+s.To)
	}
	return out
}

// InPlaceSteps upgrade each version-N control plane's static pods where it
// stands, one node at a time, as `kubeadm upgrade node` does, instead of
// replacing nodes. Kubelets keep their version and in-tree provider.
func InPlaceSteps(s Spec) []Step {
	steps := []Step{loadImagesStep(s, "control-plane images", s.n1Images())}
	for i := 1; i <= s.ControlPlanes; i++ {
		steps = append(steps, upgradeInPlaceStep(s, i))
	}
	return steps
}

// loadImagesStep copies version N+1's images (what, for people) into every
// version-N control plane.
func loadImagesStep(s Spec, what string, refs []string) Step {
	has := func(ctx context.Context, e *Env) (bool, error) {
		return e.everyNode(ctx, s.NSide(), func(node string) (bool, error) {
			have, err := e.Cluster.ImageRefs(ctx, node)
			if err != nil {
				return false, err
			}
			for _, r := range refs {
				if !have[r] {
					return false, nil
				}
			}
			return true, nil
		})
	}
	return Step{
		Name:  "load-n1-images",
		Title: "Load the " + s.To + " " + what + " into every version-" + s.From + " node",
		Plan:  []Item{{Kind: Command, Body: "crictl pull  # on each control plane: " + fmt.Sprint(refs)}},
		Done:  has,
		Do: func(ctx context.Context, e *Env) error {
			cps, err := e.controlPlanes(ctx)
			if err != nil {
				return err
			}
			var names []string
			for _, cp := range onSide(cps, s.NSide()) {
				names = append(names, cp.Name)
			}
			return e.Cluster.LoadImages(ctx, s.To, refs, names...)
		},
	}
}

// toN1KCM is the kube-controller-manager manifest edit of an in-place
// upgrade: the new image, no cloud provider, no leader migration.
func toN1KCM(version string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Image = withVersion(c.Image, version)
		for _, f := range []string{"cloud-provider", "cloud-config"} {
			c.Command = removeFlag(c.Command, f)
		}
		c.Command = removeFeatureGate(c.Command, "DisableCloudProviders")
		disableLM(p)
		removeMount(p, "cloud-config")
	}
}

func withImage(version string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Image = withVersion(p.Spec.Containers[0].Image, version) }
}

func upgradeInPlaceStep(s Spec, i int) Step {
	return Step{
		Name:  fmt.Sprintf("upgrade-control-plane-%d", i),
		Title: fmt.Sprintf("Upgrade control plane %d of %d in place to %s and start its cloud-controller-manager", i, s.ControlPlanes, s.To),
		Plan: append([]Item{
			{Kind: Command, Body: "# on a version-" + s.From + " control plane (leaders last), one component at a time:\n" +
				"# kube-apiserver, kube-scheduler: image tag " + s.To + "\n" +
				"# kube-controller-manager: image tag " + s.To + "; remove --cloud-provider, --cloud-config, DisableCloudProviders,\n" +
				"#   --enable-leader-migration, --leader-migration-config and their mounts"},
		}, inPlaceFiles(s)...),
		Done: atLeast(s.n1Side(), i),
		Do: func(ctx context.Context, e *Env) error {
			node, err := e.nextAt(ctx, s.NSide(), "upgrade")
			if err != nil {
				return err
			}
			return e.upgradeInPlace(ctx, node)
		},
		Wait: Wait{Name: "the node's cloud-controller-manager Ready", Timeout: s.Intervals.Of(IntervalControlPlane),
			Until: func(ctx context.Context, e *Env) (bool, error) {
				return e.everyNode(ctx, s.n1Side(), func(node string) (bool, error) {
					return e.staticPodRunning(ctx, node, lmconfig.CCM, time.Time{})
				})
			}},
	}
}

// inPlaceFiles are the files an upgraded control plane gets, for the plan.
func inPlaceFiles(s Spec) []Item {
	st := s.setup()
	var out []Item
	if c := st.lmFile(); c != nil {
		out = append(out, Item{Kind: File, Title: LMConfigPath + " (replaced)", Body: c.YAML()})
	}
	out = append(out, Item{Kind: File, Title: s.Provider().CCMStaticPodPath, Body: ccmStaticPod(s, st)})
	out = append(out, s.nodeManagerPlan()...)
	return append(out, st.Notes[addN1Key]...) // what an added N+1 control plane gets, this one gets
}

func (e *Env) upgradeInPlace(ctx context.Context, node string) error {
	e.event(timeline.Event{Kind: timeline.NodeDisruptStart, Node: node, Message: "in-place upgrade restarts its control-plane components"})
	defer e.event(timeline.Event{Kind: timeline.NodeDisruptEnd, Node: node})
	for _, comp := range []string{"kube-apiserver", "kube-scheduler"} {
		if err := e.roll(ctx, node, comp, withImage(e.Spec.To)); err != nil {
			return err
		}
	}
	if err := e.roll(ctx, node, lmconfig.KCM, toN1KCM(e.Spec.To)); err != nil {
		return err
	}
	if err := e.Cluster.WriteFile(ctx, node, replacementMark, e.Spec.To+"\n"); err != nil {
		return err
	}
	kubeconfig, err := e.ccmKubeconfig(ctx, node)
	if err != nil {
		return err
	}
	files := e.Spec.ccmFiles(kubeconfig)
	if err := e.applyNodeManager(ctx); err != nil {
		return err
	}
	// The configuration first: the manifest mounts it.
	for _, p := range []string{LMConfigPath, e.Spec.Provider().CCMKubeconfigPath, e.Spec.Provider().CCMStaticPodPath} {
		if body, ok := files[p]; ok {
			if err := e.Cluster.WriteFile(ctx, node, p, body); err != nil {
				return err
			}
		}
	}
	return nil
}
