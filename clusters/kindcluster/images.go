package kindcluster

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/handover-sh/handover/clusters/engine"
)

// shareImages copies into a new node the images the cluster's DaemonSets
// run that its node image lacks (a node of another Kubernetes version has
// its own kube-proxy and manager images), from a node that has them.
func (c *Cluster) shareImages(ctx context.Context, n nodes.Node) error {
	all, err := c.Nodes()
	if err != nil {
		return err
	}
	have, err := imageRefs(ctx, n)
	if err != nil {
		return err
	}
	for _, ref := range c.daemonSetImages(ctx) {
		if have[ref] {
			continue
		}
		if err := copyImage(ctx, all, n, ref); err != nil {
			return err
		}
		have[ref] = true
	}
	return nil
}

func imageRefs(ctx context.Context, n nodes.Node) (map[string]bool, error) {
	out, err := run(ctx, n, "ctr", "-n", "k8s.io", "images", "list", "-q")
	if err != nil {
		return nil, err
	}
	refs := map[string]bool{}
	for _, l := range strings.Fields(out) {
		refs[l] = true
	}
	return refs, nil
}

// listImages and pipe are the node's image list and the engine's pipe
// (tests replace them).
var (
	listImages = imageRefs
	pipe       = engine.Pipe
)

// copyImage streams ref from the first node holding it into n. A node
// that fails to give it (one removed meanwhile, as a procedure replacing
// control planes removes them) passes it on to the next; only when every
// holder failed is the copy refused.
func copyImage(ctx context.Context, from []nodes.Node, n nodes.Node, ref string) error {
	var failed error
	for _, src := range from {
		if src.String() == n.String() {
			continue
		}
		refs, err := listImages(ctx, src)
		if err != nil || !refs[ref] {
			continue
		}
		export := engine.Exec{Container: src.String(), Cmd: []string{"ctr", "-n", "k8s.io", "images", "export", "-", ref}}
		imp := engine.Exec{Container: n.String(), Cmd: []string{"ctr", "-n", "k8s.io", "images", "import", "--no-unpack", "-"}}
		if err := pipe(ctx, export, imp); err != nil {
			failed = fmt.Errorf("copying image %s from %s to %s: %w", ref, src, n, err)
			continue
		}
		return nil
	}
	return failed // nil when nobody has it: the kubelet reports the pull failure
}

// daemonSetImages lists the images of every DaemonSet; on error (API not
// reachable yet) it lists none and the kubelet reports what is missing.
func (c *Cluster) daemonSetImages(ctx context.Context) []string {
	client, err := c.ClientContext(ctx)
	if err != nil {
		return nil
	}
	list, err := client.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, ds := range list.Items {
		for _, ctr := range append(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers...) {
			if !seen[ctr.Image] {
				seen[ctr.Image] = true
				out = append(out, ctr.Image)
			}
		}
	}
	return out
}

// LoadImages copies image refs preloaded in the node image of version into
// the named nodes, through a short-lived, network-less container of that
// node image: the way to upgrade a node's static pods in place offline.
func (c *Cluster) LoadImages(ctx context.Context, version string, refs []string, targets ...string) error {
	image, err := c.imageFor(ctx, nil, version)
	if err != nil {
		return err
	}
	name := c.Name + "-images-" + strings.ReplaceAll(version, ".", "-")
	_ = engine.Remove(ctx, name)
	if err := engine.Run(ctx, engine.RunSpec{Name: name, Image: image, Network: "none", Privileged: true,
		Tmpfs: []string{"/tmp", "/run"}, Volumes: []string{"/var"},
		Labels: map[string]string{clusterLabel + "-images": c.Name}}); err != nil {
		return fmt.Errorf("starting an image donor from %s: %w", image, err)
	}
	defer func() { _ = engine.Remove(context.WithoutCancel(ctx), name) }()
	var donor nodes.Node = donorNode(name)
	if err := waitRuntime(ctx, donor); err != nil {
		return err
	}
	for _, t := range targets {
		n, err := c.node(t)
		if err != nil {
			return err
		}
		have, err := imageRefs(ctx, n)
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if !have[ref] {
				if err := copyImage(ctx, []nodes.Node{donor}, n, ref); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ImageRefs lists the images in the named node's containerd.
func (c *Cluster) ImageRefs(ctx context.Context, node string) (map[string]bool, error) {
	n, err := c.node(node)
	if err != nil {
		return nil, err
	}
	return imageRefs(ctx, n)
}
