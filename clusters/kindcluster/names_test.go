package kindcluster

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A command tells a wrong name from a broken machine by the error's kind,
// however the callers between wrapped it; the message says what to do.
func TestNameErrorsSayTheirKind(t *testing.T) {
	for _, c := range []struct {
		err       error
		kind      error
		not       error
		fixSaying string
	}{
		{noCluster("c"), ErrNoCluster, ErrClusterExists, "`handover cluster list`"},
		{clusterExists("c"), ErrClusterExists, ErrNoCluster, "`handover cluster delete --name c`"},
		{noNode("cluster %q has no node %q (nodes: %s)", "c", "n", "c-worker"), ErrNoNode, ErrNoCluster, "(nodes: c-worker)"},
	} {
		wrapped := fmt.Errorf("opening: %w", c.err)
		if !errors.Is(wrapped, c.kind) || errors.Is(wrapped, c.not) {
			t.Errorf("%v: is %v %v, is %v %v", c.err, c.kind, errors.Is(wrapped, c.kind), c.not, errors.Is(wrapped, c.not))
		}
		if !strings.Contains(c.err.Error(), c.fixSaying) {
			t.Errorf("%q does not say %s", c.err, c.fixSaying)
		}
	}
	if errors.Is(errors.New("no such cluster"), ErrNoCluster) {
		t.Error("an error of the same text is not of the kind")
	}
}
