package cloudcluster

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/internal/modsource"
)

// kindNodeNames names nodes as kind v0.33.0 does: a counter a role, the
// first of a role without a number, in the configuration's order.
func TestKindNodeNamesFollowKind(t *testing.T) {
	cp, w := v1alpha4.Node{Role: v1alpha4.ControlPlaneRole}, v1alpha4.Node{Role: v1alpha4.WorkerRole}
	got := kindNodeNames("c1", []v1alpha4.Node{cp, w, cp, w, w, cp})
	want := []string{"c1-control-plane", "c1-worker", "c1-control-plane2", "c1-worker2", "c1-worker3", "c1-control-plane3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	dir := modsource.Dir(t, "sigs.k8s.io/kind@v0.33.0")
	namer, ok := modsource.Text(t, dir, "pkg/cluster/internal/providers/common/namer.go")
	for _, line := range []string{"count := 1", `suffix := ""`, "count += v", `suffix = fmt.Sprintf("%d", count)`,
		"counter[role] = count", `return fmt.Sprintf("%s-%s%s", clusterName, role, suffix)`} {
		if !ok || !strings.Contains(namer, line) {
			t.Errorf("kind's MakeNodeNamer no longer has %q", line)
		}
	}
	provision, ok := modsource.Text(t, dir, "pkg/cluster/internal/providers/docker/provision.go")
	if !ok || !strings.Contains(provision, "for i, node := range cfg.Nodes {\n\t\tname := nodeNamer(string(node.Role))") {
		t.Error("kind's docker provider no longer names the nodes in the configuration's order")
	}
}
