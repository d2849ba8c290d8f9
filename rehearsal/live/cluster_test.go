package live_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	_ "github.com/handover-sh/handover/providers/all"
	"github.com/handover-sh/handover/rehearsal/live"
)

// The cluster handover's AWS provider creates (lmx, kubeadm, v1.29.15),
// as its API server shows it: the objects below are as such a cluster has
// them.
const (
	controlPlane = "ip-172-19-0-3.sim-region-1.compute.internal"
	worker       = "ip-172-19-0-4.sim-region-1.compute.internal"
	lmDir        = "/etc/kubernetes/leader-migration"
	lmPath       = lmDir + "/leader-migration.yaml"
	lmConfigMap  = "ccm-leader-migration"
	ccmImage     = "registry.k8s.io/provider-aws/cloud-controller-manager:v1.29.6"
)

// kcmCommand is kubeadm's kube-controller-manager as the cluster runs it.
var kcmCommand = []string{"kube-controller-manager", "--allocate-node-cidrs=true",
	"--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
	"--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
	"--bind-address=127.0.0.1", "--client-ca-file=/etc/kubernetes/pki/ca.crt",
	"--cluster-cidr=10.244.0.0/16", "--cluster-name=lmx",
	"--cluster-signing-cert-file=/etc/kubernetes/pki/ca.crt",
	"--cluster-signing-key-file=/etc/kubernetes/pki/ca.key",
	"--controllers=*,bootstrapsigner,tokencleaner", "--enable-hostpath-provisioner=true",
	"--kubeconfig=/etc/kubernetes/controller-manager.conf", "--leader-elect=true",
	"--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt",
	"--root-ca-file=/etc/kubernetes/pki/ca.crt",
	"--service-account-private-key-file=/etc/kubernetes/pki/sa.key",
	"--service-cluster-ip-range=10.96.0.0/16", "--use-service-account-credentials=true"}

// ccmArgs are the aws-cloud-controller-manager DaemonSet's.
var ccmArgs = []string{"--bind-address=127.0.0.1",
	"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics", "--v=2",
	"--cloud-provider=aws", "--cloud-config=/etc/kubernetes/aws/cloud-ccm.conf",
	"--cluster-name=lmx", "--allocate-node-cidrs=true", "--configure-cloud-routes=true",
	"--cluster-cidr=10.244.0.0/16", "--enable-leader-migration",
	"--leader-migration-config=" + lmPath}

// lmConfig is the CCM's leader-migration configuration, as the ConfigMap
// holds it.
const lmConfig = `kind: LeaderMigrationConfiguration
apiVersion: controllermanager.config.k8s.io/v1
leaderName: cloud-provider-extraction-migration
resourceLock: leases
controllerLeaders:
  - name: route
    component: '*'
  - name: service
    component: '*'
  - name: cloud-node-lifecycle
    component: '*'
`

// testCluster is a cluster's objects, each a field a test may change.
type testCluster struct {
	version string
	nodes   []*corev1.Node
	kcm     *corev1.Pod
	ccm     *corev1.Pod
	others  []runtime.Object
}

// awsCluster is lmx: one control plane, one worker, kubeadm's static
// kube-controller-manager, the aws-cloud-controller-manager DaemonSet's
// pod with its leader-migration ConfigMap, CoreDNS and one LoadBalancer
// Service.
func awsCluster() *testCluster {
	return &testCluster{
		version: "v1.29.15",
		nodes: []*corev1.Node{
			node(controlPlane, "aws:///sim-region-1c/i-efc5e5724a0c9d55d", true),
			node(worker, "aws:///sim-region-1c/i-0a4c3e8b1d2f60719", false),
		},
		kcm: kcmPod(kcmCommand),
		ccm: ccmPod(ccmArgs, ownedBy("DaemonSet", "aws-cloud-controller-manager")),
		others: []runtime.Object{
			configMap(lmConfigMap, map[string]string{"leader-migration.yaml": lmConfig}),
			corednsPod(),
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default"},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}},
		},
	}
}

// client is a fake clientset holding the cluster, its API server at
// tc.version.
func (tc *testCluster) client() *fake.Clientset {
	var objs []runtime.Object
	for _, n := range tc.nodes {
		objs = append(objs, n)
	}
	for _, p := range []*corev1.Pod{tc.kcm, tc.ccm} {
		if p != nil {
			objs = append(objs, p)
		}
	}
	c := fake.NewSimpleClientset(append(objs, tc.others...)...)
	c.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{
		Major: "1", Minor: "29", GitVersion: tc.version, Platform: "linux/amd64"}
	return c
}

// describe reads the cluster and describes it, failing the test on an
// error.
func (tc *testCluster) describe(t *testing.T) *live.Description {
	t.Helper()
	cl, err := live.Read(context.Background(), tc.client(), "lmx.kubeconfig")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	d, err := live.Describe(cl)
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	return d
}

func node(name, providerID string, controlPlane bool) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{corev1.LabelHostname: name, corev1.LabelTopologyZone: "sim-region-1c",
				corev1.LabelTopologyRegion: "sim-region-1", corev1.LabelOSStable: "linux"},
			Annotations: map[string]string{"kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock",
				"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
		Spec:   corev1.NodeSpec{ProviderID: providerID, PodCIDR: "10.244.0.0/24"},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.29.15", KubeProxyVersion: "v1.29.15"}},
	}
	if controlPlane {
		n.Labels["node-role.kubernetes.io/control-plane"] = ""
		n.Spec.Taints = []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}
	}
	return n
}

// kcmPod is kubeadm's static kube-controller-manager pod as its mirror
// shows it, with kubeadm's hostPath mounts.
func kcmPod(command []string) *corev1.Pod {
	name := "kube-controller-manager-" + controlPlane
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem,
			Labels: map[string]string{"component": "kube-controller-manager", "tier": "control-plane"},
			Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "5d0f4a3c1e0c2b1f6a1e9e4d1c0b3a29",
				"kubernetes.io/config.hash": "5d0f4a3c1e0c2b1f6a1e9e4d1c0b3a29", "kubernetes.io/config.source": "file"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: controlPlane, Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: controlPlane, HostNetwork: true, PriorityClassName: "system-node-critical",
			Containers: []corev1.Container{{Name: "kube-controller-manager", Image: "registry.k8s.io/kube-controller-manager:v1.29.15",
				Command: command}}},
	}
	hostPath(p, "ca-certs", "/etc/ssl/certs", "/etc/ssl/certs")
	hostPath(p, "k8s-certs", "/etc/kubernetes/pki", "/etc/kubernetes/pki")
	hostPath(p, "kubeconfig", "/etc/kubernetes/controller-manager.conf", "/etc/kubernetes/controller-manager.conf")
	return p
}

// ccmPod is a pod of the aws-cloud-controller-manager with args, owned as
// given, mounting the leader-migration ConfigMap at lmDir and the
// cloud-config from the node.
func ccmPod(args []string, owner metav1.OwnerReference) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-cloud-controller-manager-x7k2p", Namespace: metav1.NamespaceSystem,
			Labels:          map[string]string{"k8s-app": "aws-cloud-controller-manager"},
			OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: corev1.PodSpec{NodeName: controlPlane, HostNetwork: true, ServiceAccountName: "cloud-controller-manager",
			Containers: []corev1.Container{{Name: "aws-cloud-controller-manager", Image: ccmImage, Args: args,
				VolumeMounts: []corev1.VolumeMount{{Name: "lm", MountPath: lmDir, ReadOnly: true}}}},
			Volumes: []corev1.Volume{{Name: "lm", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: lmConfigMap}}}}}},
	}
	hostPath(p, "aws-config", "/etc/kubernetes/aws", "/etc/kubernetes/aws")
	return p
}

// hostPath mounts the node's path at mount in p's first container.
func hostPath(p *corev1.Pod, name, path, mount string) {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: name,
		VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}})
	c := &p.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: mount, ReadOnly: true})
}

func corednsPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "coredns-76f75df574-8gq2d", Namespace: metav1.NamespaceSystem,
			Labels:          map[string]string{"k8s-app": "kube-dns"},
			OwnerReferences: []metav1.OwnerReference{ownedBy("ReplicaSet", "coredns-76f75df574")}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "coredns", Image: "registry.k8s.io/coredns/coredns:v1.11.1",
			Args: []string{"-conf", "/etc/coredns/Corefile"}}}},
	}
}

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem}, Data: data}
}

// ownedBy is the controller reference of an apps/v1 object.
func ownedBy(kind, name string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("0d9c7e5a-" + name), Controller: ptr.To(true)}
}

// deployed makes the cluster's CCM the pod of a Deployment's ReplicaSet,
// with replicas.
func (tc *testCluster) deployed(replicas int32) {
	const dep, rs = "aws-cloud-controller-manager", "aws-cloud-controller-manager-6c9d8b7f5"
	tc.ccm.OwnerReferences = []metav1.OwnerReference{ownedBy("ReplicaSet", rs)}
	tc.others = append(tc.others,
		&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: rs, Namespace: metav1.NamespaceSystem,
			OwnerReferences: []metav1.OwnerReference{ownedBy("Deployment", dep)}},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: dep, Namespace: metav1.NamespaceSystem},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas)}})
}
