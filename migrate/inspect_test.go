package migrate

import (
	"context"
	"slices"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func lease(name, holder string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
}

// On rollback the last two version-N+1 control planes hold, one the
// migration lease (its cloud-controller-manager), the other
// kube-controller-manager's main lease: the main lease's holder goes
// first, so a version-N kube-controller-manager takes that lease and
// watches the migration lease before it frees.
func TestLeaderLastTakesTheMigrationLeaseHolderVeryLast(t *testing.T) {
	const migration = "cloud-provider-extraction-migration"
	e := &Env{Spec: Spec{LeaderName: migration}, Client: fake.NewSimpleClientset(
		lease(migration, "cp4_a"), lease("cloud-controller-manager", "cp4_a"), lease("kube-controller-manager", "cp6_b"))}
	cps := []ControlPlane{{Name: "cp4"}, {Name: "cp5"}, {Name: "cp6"}, {Name: "cp7"}}
	var got []string
	for _, cp := range e.leaderLast(context.Background(), cps) {
		got = append(got, cp.Name)
	}
	want := []string{"cp5", "cp7", "cp6", "cp4"}
	if !slices.Equal(got, want) {
		t.Fatalf("leaderLast = %v, want %v", got, want)
	}
}

func TestBesideMigrationFindsTheMainLeaseThatWouldGoWithIt(t *testing.T) {
	for _, c := range []struct {
		name    string
		holders map[string]string
		want    []string
	}{
		{"rollback: the N+1 kube-controller-manager beside the lease's cloud-controller-manager",
			map[string]string{"kube-controller-manager": "cp4_k", "cloud-controller-manager": "cp4_c"}, []string{"kube-controller-manager"}},
		{"forward: kube-controller-manager holds both leases", map[string]string{"kube-controller-manager": "cp4_c"}, nil},
		{"main lease on another node", map[string]string{"kube-controller-manager": "cp7_k", "cloud-controller-manager": "cp4_c"}, nil},
		{"no holders", nil, nil},
	} {
		if got := besideMigration("cp4", "cp4_c", c.holders); !slices.Equal(got, c.want) {
			t.Errorf("%s: besideMigration = %v, want %v", c.name, got, c.want)
		}
	}
}
