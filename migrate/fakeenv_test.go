package migrate_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/fakecluster"
	_ "github.com/handover-sh/handover/migrate/procedures"
	_ "github.com/handover-sh/handover/providers/all"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// fakeEnv is a version-N cluster of the simulated cloud with the in-tree
// provider, in memory: cps control planes and one worker, each Node
// initialised by the cloud, kube-controller-manager's leader-locking Role
// as the API server bootstraps it.
type fakeEnv struct {
	*migrate.Env
	kind     *fakecluster.Cluster
	managers *fakecluster.Managers
	proc     *migrate.Procedure
	cps      []string
}

func newFakeEnv(t *testing.T, s migrate.Spec) *fakeEnv {
	t.Helper()
	p, err := migrate.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(
		fakecluster.ClusterConfiguration(s.From, map[string]string{"cloud-provider": cloudcluster.ProviderName, "cloud-config": cloudcluster.CloudConfigPath}),
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "system::leader-locking-kube-controller-manager", Namespace: "kube-system"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"kube-controller-manager"}, Verbs: []string{"get", "update"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system::leader-locking-kube-controller-manager", Namespace: "kube-system"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "system::leader-locking-kube-controller-manager"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "system:kube-controller-manager"}}},
	)
	kind := fakecluster.New(s.Cluster, client)
	f := &fakeEnv{kind: kind, managers: &fakecluster.Managers{}, proc: p}
	pki := pkiFiles(t)
	for range s.ControlPlanes {
		name, err := kind.AddNode(context.Background(), kindcluster.AddNodeOptions{Role: kindcluster.RoleControlPlane, Kubernetes: s.From,
			KubeletArgs: map[string]string{"cloud-provider": cloudcluster.ProviderName, "cloud-config": cloudcluster.CloudConfigPath}, Files: pki})
		if err != nil {
			t.Fatal(err)
		}
		f.cps = append(f.cps, name)
	}
	if _, err := kind.AddNode(context.Background(), kindcluster.AddNodeOptions{Role: kindcluster.RoleWorker, Kubernetes: s.From,
		KubeletArgs: map[string]string{"cloud-provider": cloudcluster.ProviderName}}); err != nil {
		t.Fatal(err)
	}
	f.initialiseNodes(t)
	f.Env = &migrate.Env{Spec: p.Spec, Cluster: kind, Managers: f.managers, Client: client, Logger: log.NoopLogger{}, Poll: 5 * time.Millisecond}
	return f
}

// pkiFiles are a control plane's CA and controller-manager.conf, from which
// the cloud-controller-manager's kubeconfig is issued.
func pkiFiles(t *testing.T) map[string]string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "kubernetes"}, key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubernetes"] = &clientcmdapi.Cluster{Server: "https://10.0.0.1:6443"}
	cfg.Contexts["default"] = &clientcmdapi.Context{Cluster: "kubernetes", AuthInfo: "kcm"}
	cfg.CurrentContext = "default"
	conf, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"/etc/kubernetes/pki/ca.crt": string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})), "/etc/kubernetes/pki/ca.key": string(keyPEM),
		"/etc/kubernetes/controller-manager.conf": string(conf)}
}

// initialiseNodes is the cloud: every Node gets its ProviderID.
func (f *fakeEnv) initialiseNodes(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	list, err := f.kind.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list.Items {
		if n.Spec.ProviderID != "" {
			continue
		}
		n.Spec.ProviderID = "kind://" + n.Name
		if _, err := f.kind.Client.CoreV1().Nodes().Update(ctx, &n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// holds makes identity node_x the current holder of lease.
func (f *fakeEnv) holds(t *testing.T, lease, node string) {
	t.Helper()
	f.holdsAs(t, lease, node+"_x")
}

// holdsAs makes identity ("node_id") the current holder of lease.
func (f *fakeEnv) holdsAs(t *testing.T, lease, identity string) {
	t.Helper()
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: lease, Namespace: "kube-system"},
		Spec: coordv1.LeaseSpec{HolderIdentity: ptr.To(identity), LeaseDurationSeconds: ptr.To[int32](15), RenewTime: &metav1.MicroTime{Time: time.Now()}}}
	leases := f.kind.Client.CoordinationV1().Leases("kube-system")
	if _, err := leases.Update(context.Background(), l, metav1.UpdateOptions{}); err != nil {
		if _, err := leases.Create(context.Background(), l, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// runs says which manager instance runs every migrated controller; every
// other manager on a control plane runs none of them.
func (f *fakeEnv) runs(t *testing.T, component, node string) {
	t.Helper()
	cps, err := f.kind.ControlPlanes()
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range cps {
		f.managers.Set("kube-controller-manager", cp.String())
		if _, err := f.kind.ReadFile(context.Background(), cp.String(), cloudcluster.CCMStaticPodPath); err == nil {
			f.managers.Set("cloud-controller-manager", cp.String())
		}
	}
	f.managers.Set(component, node, f.Spec.Controllers()...)
}

func (f *fakeEnv) step(t *testing.T, name string) migrate.Step {
	t.Helper()
	i := f.proc.Index(name)
	if i < 0 {
		t.Fatalf("%s has no step %s", f.proc.Name, name)
	}
	return f.proc.Steps[i]
}

// done is the step's skip-if-done check; it must not fail.
func (f *fakeEnv) done(t *testing.T, st migrate.Step) bool {
	t.Helper()
	if st.Done == nil {
		return false
	}
	ok, err := st.Done(context.Background(), f.Env)
	if err != nil {
		t.Fatalf("%s: Done: %v", st.Name, err)
	}
	return ok
}

// do runs the step's precondition and action, which must succeed.
func (f *fakeEnv) do(t *testing.T, st migrate.Step) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if st.Pre != nil {
		if err := st.Pre(ctx, f.Env); err != nil {
			t.Fatalf("%s: Pre: %v", st.Name, err)
		}
	}
	if st.Do != nil {
		if err := st.Do(ctx, f.Env); err != nil {
			t.Fatalf("%s: Do: %v", st.Name, err)
		}
	}
}

// walk runs each named step as the runner would, checking that it is not
// done before and is done after: its skip-if-done check follows its action.
func (f *fakeEnv) walk(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		st := f.step(t, name)
		if f.done(t, st) {
			t.Fatalf("%s done before it ran", name)
		}
		f.do(t, st)
		if !f.done(t, st) {
			t.Fatalf("%s not done after it ran", name)
		}
	}
}

// until is the step's postcondition, asked once.
func (f *fakeEnv) until(st migrate.Step) (bool, error) {
	if st.Wait.Until == nil {
		return true, nil
	}
	return st.Wait.Until(context.Background(), f.Env)
}

func (f *fakeEnv) file(t *testing.T, node, path string) string {
	t.Helper()
	b, err := f.kind.ReadFile(context.Background(), node, path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *fakeEnv) node(t *testing.T, name string) *corev1.Node {
	t.Helper()
	n, err := f.kind.Client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
