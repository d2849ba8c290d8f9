package cloudcluster

import (
	"context"
	"path/filepath"
	"slices"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

// fakeCloud is a Cloud whose every node gets a shared file, control
// planes a file of their own role, and each node a file of its own; it
// records the nodes it was told of.
type fakeCloud struct {
	joined, gone *[]string
}

var _ Cloud = fakeCloud{}

func newFakeCloud() fakeCloud { return fakeCloud{joined: new([]string), gone: new([]string)} }

func (fakeCloud) Validate(ClusterInput) error { return nil }

func (fakeCloud) Prepare(context.Context, PrepareInput) (Served, error) { return Served{}, nil }

func (fakeCloud) NodeMounts(cluster, node string, role v1alpha4.NodeRole) []v1alpha4.Mount {
	dir := filepath.Join(StateDir(cluster), "fake")
	ms := []v1alpha4.Mount{{HostPath: filepath.Join(dir, "shared"), ContainerPath: "/etc/fake/shared", Readonly: true}}
	if role == v1alpha4.ControlPlaneRole {
		ms = append(ms, v1alpha4.Mount{HostPath: filepath.Join(dir, "managers"), ContainerPath: "/etc/fake/managers", Readonly: true})
	}
	return append(ms, v1alpha4.Mount{HostPath: filepath.Join(dir, "nodes", node), ContainerPath: "/etc/fake/own", Readonly: true})
}

func (fakeCloud) KubeadmPatches(ClusterInput) []string { return []string{"kind: JoinConfiguration"} }

func (f fakeCloud) NodeJoins(_, node string) error {
	*f.joined = append(*f.joined, node)
	return nil
}

func (f fakeCloud) NodeGone(_, node string) error {
	*f.gone = append(*f.gone, node)
	return nil
}

func (fakeCloud) Manifests(ClusterInput) ([]string, error) { return nil, nil }

// told says whether the cloud was told of node joining (or gone).
func told(nodes *[]string, node string) bool { return slices.Contains(*nodes, node) }
