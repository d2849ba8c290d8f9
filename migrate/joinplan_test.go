package migrate_test

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate"
)

// A join's plan names every kubelet flag the join passes: someone
// following the plan by hand gives the kubelet what the rehearsal gave it
// (without the image credential provider's, a joining kubelet of a cloud
// without an in-tree one cannot pull from its registry: negative case 19).
func TestJoinPlansShowTheKubeletFlags(t *testing.T) {
	for _, tc := range []struct {
		name, mistake, step string
		prepare             []string
		absent              string
	}{
		{"taskdoc", "", "add-n1-control-plane-1", []string{"grant-migration-lease", "prepare-n1-cluster-configuration"}, ""},
		{"taskdoc, the mistake", migrate.MistakeN1NoCredentials, "add-n1-control-plane-1", []string{"grant-migration-lease", "prepare-n1-cluster-configuration"}, "--image-credential-provider-bin-dir="},
	} {
		s := taskDocSpec()
		s.Mistake = tc.mistake
		f := newFakeEnv(t, s)
		for _, name := range tc.prepare {
			f.do(t, f.step(t, name))
		}
		st := f.step(t, tc.step)
		f.do(t, st)
		added := f.kind.Added()
		assertPlanShows(t, tc.name, st, added[len(added)-1].KubeletArgs)
		if plan := planText(st); tc.absent != "" && strings.Contains(plan, tc.absent) {
			t.Errorf("%s: the plan shows %s, which the join does not pass:\n%s", tc.name, tc.absent, plan)
		}
	}
	f := migrated(t, 2)
	st := f.step(t, "add-n-control-plane-1")
	f.do(t, f.step(t, "restore-n-cluster-configuration"))
	f.do(t, st)
	added := f.kind.Added()
	assertPlanShows(t, "rollback", st, added[len(added)-1].KubeletArgs)
}

func assertPlanShows(t *testing.T, name string, st migrate.Step, kubelet map[string]string) {
	t.Helper()
	plan := planText(st)
	for k, v := range kubelet {
		if v != "" && !strings.Contains(plan, "--"+k+"="+v) {
			t.Errorf("%s: the join passes --%s=%s and the plan does not say so:\n%s", name, k, v, plan)
		}
	}
}

func planText(st migrate.Step) string {
	var b strings.Builder
	for _, it := range st.Plan {
		b.WriteString(it.Body + "\n")
	}
	return b.String()
}
