// Package fakecluster is an in-memory cluster for the migration steps' unit
// tests: nodes with files, a kubelet that turns static-pod manifests into
// mirror pods, kubeadm joins that render a control plane's manifests from
// the cluster's ClusterConfiguration, `kubectl apply` into a fake
// clientset, and the RBAC answers of SubjectAccessReviews. Nothing runs:
// what a real cluster would do later (a cloud setting ProviderIDs, a
// manager taking a lease) a test sets itself.
package fakecluster

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/managers"
)

const manifestsDir = "/etc/kubernetes/manifests/"

// Cluster is the fake. Its methods are safe for concurrent use.
type Cluster struct {
	Name   string
	Client *fake.Clientset

	mu      sync.Mutex
	nodes   map[string]*node
	serial  map[string]int // per role, as kind numbers nodes
	applied []string
	execs   []string
	writes  []string
	added   []kindcluster.AddNodeOptions
	removed []string
}

type node struct {
	name, role string
	files      map[string]string
	images     map[string]bool // loaded into it (LoadImages)
	stopped    bool
}

// New is an empty cluster whose API is client, with the RBAC reactor.
func New(name string, client *fake.Clientset) *Cluster {
	c := &Cluster{Name: name, Client: client, nodes: map[string]*node{}, serial: map[string]int{}}
	client.PrependReactor("create", "subjectaccessreviews", c.review)
	return c
}

// Node adds a node as kind names them ("<cluster>-control-plane",
// "<cluster>-control-plane2", "<cluster>-worker"), with a Ready Node object.
func (c *Cluster) Node(role string, files map[string]string) string {
	c.mu.Lock()
	c.serial[role]++
	name := c.Name + "-" + role
	if n := c.serial[role]; n > 1 {
		name += fmt.Sprint(n)
	}
	n := &node{name: name, role: role, files: map[string]string{}}
	c.nodes[name] = n
	c.mu.Unlock()
	_, _ = c.Client.CoreV1().Nodes().Create(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}, metav1.CreateOptions{})
	for p, body := range files {
		c.write(n, p, body)
	}
	return name
}

// Stop marks a node's machine stopped (its instance terminated).
func (c *Cluster) Stop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.nodes[name]; n != nil {
		n.stopped = true
	}
}

// Applied are the manifests applied, in order.
func (c *Cluster) Applied() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.applied)
}

// Execs are the commands run on nodes, as "node: arg arg ...".
func (c *Cluster) Execs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.execs)
}

// Writes are the files written, in order, as "node:path".
func (c *Cluster) Writes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.writes)
}

// Added are the options of every AddNode, in order.
func (c *Cluster) Added() []kindcluster.AddNodeOptions {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.added)
}

// Removed are the nodes RemoveNode removed, in order.
func (c *Cluster) Removed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.removed)
}

func (c *Cluster) list(role string) []nodes.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []nodes.Node
	for _, n := range c.nodes {
		if role == "" || n.role == role {
			out = append(out, fakeNode{name: n.name, role: n.role})
		}
	}
	slices.SortFunc(out, func(a, b nodes.Node) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Nodes lists every node.
func (c *Cluster) Nodes() ([]nodes.Node, error) { return c.list(""), nil }

// ControlPlanes lists the control-plane nodes.
func (c *Cluster) ControlPlanes() ([]nodes.Node, error) {
	return c.list(kindcluster.RoleControlPlane), nil
}

// Running is false for a stopped node and an error for an unknown one.
func (c *Cluster) Running(_ context.Context, name string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nodes[name]
	if n == nil {
		return false, fmt.Errorf("no node %s", name)
	}
	return !n.stopped, nil
}

// NodeName: the fake's kubelets register Nodes under their machines'
// names, as kind's do.
func (c *Cluster) NodeName(_ context.Context, name string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return name, c.nodes[name] != nil, nil
}

// RemoveNode removes the node, its Node object and its mirror pods.
func (c *Cluster) RemoveNode(ctx context.Context, name string) error {
	c.mu.Lock()
	n := c.nodes[name]
	delete(c.nodes, name)
	if n != nil {
		c.removed = append(c.removed, name)
	}
	c.mu.Unlock()
	if n == nil {
		return fmt.Errorf("no node %s", name)
	}
	for p := range n.files {
		c.kubeletRemoved(name, p)
	}
	return c.Client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
}

// Exec records the command. Restarting the kubelet renews the node's
// lease, as the restarted kubelet does; nothing else changes anything.
func (c *Cluster) Exec(ctx context.Context, name string, args ...string) (string, error) {
	c.mu.Lock()
	if c.nodes[name] == nil {
		c.mu.Unlock()
		return "", fmt.Errorf("no node %s", name)
	}
	cmd := strings.Join(args, " ")
	c.execs = append(c.execs, name+": "+cmd)
	c.mu.Unlock()
	if cmd == "systemctl restart kubelet" {
		return "", c.renewNodeLease(ctx, name)
	}
	return "", nil
}

func (c *Cluster) renewNodeLease(ctx context.Context, name string) error {
	leases := c.Client.CoordinationV1().Leases("kube-node-lease")
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-node-lease"},
		Spec: coordv1.LeaseSpec{HolderIdentity: &name, RenewTime: &metav1.MicroTime{Time: time.Now()}}}
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err == nil {
		return nil
	}
	_, err := leases.Create(ctx, l, metav1.CreateOptions{})
	return err
}

// ReadFile reads a node's file; a missing one is fs.ErrNotExist.
func (c *Cluster) ReadFile(_ context.Context, name, path string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nodes[name]
	if n == nil {
		return "", fmt.Errorf("no node %s", name)
	}
	body, ok := n.files[path]
	if !ok {
		return "", fmt.Errorf("%s on %s: %w", path, name, fs.ErrNotExist)
	}
	return body, nil
}

// WriteFile writes a node's file; a static-pod manifest (re)starts its pod.
func (c *Cluster) WriteFile(_ context.Context, name, path, content string) error {
	c.mu.Lock()
	n := c.nodes[name]
	c.mu.Unlock()
	if n == nil {
		return fmt.Errorf("no node %s", name)
	}
	return c.write(n, path, content)
}

// RemoveFile removes a node's file; a static-pod manifest stops its pod.
func (c *Cluster) RemoveFile(_ context.Context, name, path string) error {
	c.mu.Lock()
	n := c.nodes[name]
	if n != nil {
		delete(n.files, path)
	}
	c.mu.Unlock()
	if n == nil {
		return fmt.Errorf("no node %s", name)
	}
	c.kubeletRemoved(name, path)
	return nil
}

// ImageRefs are the images loaded into the node (its node image's own are
// not listed).
func (c *Cluster) ImageRefs(_ context.Context, name string) (map[string]bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nodes[name]
	if n == nil {
		return nil, fmt.Errorf("no node %s", name)
	}
	return maps.Clone(n.images), nil
}

// LoadImages records the images as loaded into each target.
func (c *Cluster) LoadImages(_ context.Context, _ string, refs []string, targets ...string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range targets {
		n := c.nodes[t]
		if n == nil {
			return fmt.Errorf("no node %s", t)
		}
		if n.images == nil {
			n.images = map[string]bool{}
		}
		for _, r := range refs {
			n.images[r] = true
		}
	}
	return nil
}

func (c *Cluster) write(n *node, path, content string) error {
	c.mu.Lock()
	n.files[path] = content
	c.writes = append(c.writes, n.name+":"+path)
	c.mu.Unlock()
	if !strings.HasPrefix(path, manifestsDir) {
		return nil
	}
	return c.kubeletStart(n.name, content)
}

// kubeletStart is the kubelet running a manifest: its mirror pod, with the
// manifest's spec, running since now and Ready.
func (c *Cluster) kubeletStart(nodeName, manifest string) error {
	var pod corev1.Pod
	if err := yaml.Unmarshal([]byte(manifest), &pod); err != nil {
		return fmt.Errorf("static pod on %s: %w", nodeName, err)
	}
	pod.Name, pod.Namespace, pod.Spec.NodeName = pod.Name+"-"+nodeName, "kube-system", nodeName
	started := metav1.NewTime(time.Now())
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	for _, ct := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: ct.Name, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}})
	}
	pods := c.Client.CoreV1().Pods("kube-system")
	_ = pods.Delete(context.Background(), pod.Name, metav1.DeleteOptions{})
	_, err := pods.Create(context.Background(), &pod, metav1.CreateOptions{})
	return err
}

func (c *Cluster) kubeletRemoved(nodeName, path string) {
	if !strings.HasPrefix(path, manifestsDir) {
		return
	}
	name := strings.TrimSuffix(strings.TrimPrefix(path, manifestsDir), ".yaml") + "-" + nodeName
	_ = c.Client.CoreV1().Pods("kube-system").Delete(context.Background(), name, metav1.DeleteOptions{})
}

// fakeNode is the part of kind's nodes.Node the steps use.
type fakeNode struct {
	nodes.Node // nil: anything else panics
	name, role string
}

func (n fakeNode) String() string        { return n.name }
func (n fakeNode) Role() (string, error) { return n.role, nil }

// Managers is what the controller managers report, as a test sets it.
type Managers struct {
	mu      sync.Mutex
	running map[string]map[string]bool // component@node → controllers
}

// Set says component on node runs controllers (none: it runs, with no
// migrated controller).
func (m *Managers) Set(component, node string, controllers ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running == nil {
		m.running = map[string]map[string]bool{}
	}
	set := map[string]bool{}
	for _, c := range controllers {
		set[c] = true
	}
	m.running[component+"@"+node] = set
}

// Stop says component on node no longer runs.
func (m *Managers) Stop(component, node string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.running, component+"@"+node)
}

// Controllers are what component on node runs; none when it does not run.
func (m *Managers) Controllers(_ context.Context, node, component string, _ time.Duration) (map[string]bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.running[component+"@"+node]), nil
}

// Get answers 200 from a running manager and managers.ErrNotListening
// from any other.
func (m *Managers) Get(_ context.Context, node, component, _ string, _ time.Duration) (managers.Answer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.running[component+"@"+node]; !ok {
		return managers.Answer{}, managers.ErrNotListening
	}
	return managers.Answer{Status: 200, Body: []byte("ok")}, nil
}
