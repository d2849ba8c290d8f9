package lint

import (
	"context"
	"strings"
	"testing"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestCheckRBAC(t *testing.T) {
	client := fake.NewSimpleClientset()
	// Only the kube-controller-manager may touch the lease.
	client.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		sar.Status.Allowed = sar.Spec.User == "system:kube-controller-manager"
		return true, sar, nil
	})
	fs, err := CheckRBAC(context.Background(), client, "cloud-provider-extraction-migration",
		Identity{Component: "kube-controller-manager", User: "system:kube-controller-manager", Role: "system::leader-locking-kube-controller-manager"},
		Identity{Component: "cloud-controller-manager", User: "system:cloud-controller-manager", Role: "system::leader-locking-cloud-controller-manager"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Where != "RBAC system:cloud-controller-manager" || !strings.Contains(fs[0].Fix, "system::leader-locking-cloud-controller-manager") {
		t.Fatalf("want one finding for the cloud-controller-manager, got\n%s", fs)
	}
}
