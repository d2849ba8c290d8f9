package cloudcluster_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/testenv"
	_ "github.com/handover-sh/handover/providers/all" // the providers clusters are made for
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
	"github.com/handover-sh/handover/simulate/cloudserver"
)

func TestInTreeCloud(t *testing.T) {
	testCloudMode(t, cloudcluster.InTree, "kube-controller-manager")
}

func TestExternalCloud(t *testing.T) {
	testCloudMode(t, cloudcluster.External, "cloud-controller-manager")
}

// testCloudMode checks that the manager that owns the cloud loops in a mode
// really runs them against the simulated cloud, and nothing else does.
func testCloudMode(t *testing.T, mode cloudcluster.Mode, manager string) {
	topo := topology.Default()
	topo.Name, topo.ControlPlanes, topo.Workers = "handover-"+string(mode), 1, 2
	testenv.RequireIntegration(t, topo.Kubernetes)
	ctx := context.Background()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	c, err := cloudcluster.Create(ctx, topo, mode, cloudcluster.DaemonSet,
		kindcluster.CreateOptions{Logger: testenv.Logger{T: t}, KubeconfigPath: kubeconfig}, testenv.HandoverBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			_ = c.CollectLogs(testenv.ArtifactsDir(t))
			_ = testenv.CopyFile(filepath.Join(cloudcluster.StateDir(topo.Name), "audit.jsonl"), filepath.Join(testenv.ArtifactsDir(t), "simcloud-audit.jsonl"))
		}
		_ = cloudcluster.Delete(context.Background(), topo.Name, kubeconfig, testenv.Logger{T: t})
	})
	client, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	cloud, err := cloudcluster.Client(topo.Name, "handover-test")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()

	t.Run("every node has its ProviderID, zone and instance type", func(t *testing.T) {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes.Items {
			checkInitialised(t, &n, topo.Name)
		}
	})
	if mode == cloudcluster.External {
		t.Run("a node joined later is uninitialised until the CCM initialises it", func(t *testing.T) {
			testJoinedNode(t, c, client, topo.Name)
		})
	}
	t.Run("a LoadBalancer Service carries traffic from the host and goes with the Service", func(t *testing.T) {
		testLoadBalancer(t, client, topo.Name, "web")
	})
	t.Run("under 50% errors and throttling the manager retries, and converges once cleared", func(t *testing.T) {
		testFaults(t, client, cloud, topo.Name, manager)
	})
	t.Run("cross-node pod traffic follows the cloud route table", func(t *testing.T) {
		testRoutes(t, c, client, cloud, topo.Name)
	})
	t.Run("a terminated instance's Node is removed by cloud-node-lifecycle", func(t *testing.T) {
		victim := topo.Name + "-worker2"
		if err := cloud.TerminateInstance(ctx, victim); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(ctx, 2*time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := client.CoreV1().Nodes().Get(ctx, victim, metav1.GetOptions{})
			return err != nil, nil
		})
		if err != nil {
			t.Fatalf("Node %s still exists 3 minutes after its instance was terminated", victim)
		}
	})
	t.Run("the cloud's audit attributes the calls to "+manager, func(t *testing.T) {
		testAudit(t, cloud, start, mode, manager)
	})
}

func checkInitialised(t *testing.T, n *corev1.Node, cluster string) {
	t.Helper()
	if want := (behaviour.Behaviour{}).ProviderIDOf(cluster, n.Name); n.Spec.ProviderID != want {
		t.Errorf("%s: ProviderID %q, want %q", n.Name, n.Spec.ProviderID, want)
	}
	if n.Labels["topology.kubernetes.io/zone"] != cloudserver.ZoneOf(n.Name) || n.Labels["node.kubernetes.io/instance-type"] == "" {
		t.Errorf("%s: labels %v", n.Name, n.Labels)
	}
	for _, taint := range n.Spec.Taints {
		if taint.Key == testenv.UninitializedTaint {
			t.Errorf("%s still has the %s taint", n.Name, testenv.UninitializedTaint)
		}
	}
}

// testJoinedNode watches Nodes while a worker joins and requires that it was
// seen tainted and without ProviderID before the CCM initialised it.
func testJoinedNode(t *testing.T, c *kindcluster.Cluster, client kubernetes.Interface, cluster string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := client.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sawUninitialised := map[string]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			n, ok := ev.Object.(*corev1.Node)
			if !ok {
				continue
			}
			for _, taint := range n.Spec.Taints {
				if taint.Key == testenv.UninitializedTaint && n.Spec.ProviderID == "" {
					sawUninitialised[n.Name] = true
				}
			}
		}
	}()
	name, err := c.AddNode(ctx, kindcluster.AddNodeOptions{Role: kindcluster.RoleWorker})
	if err != nil {
		t.Fatal(err)
	}
	var node *corev1.Node
	err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		node, err = client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return err == nil && node.Spec.ProviderID != "", nil
	})
	if err != nil {
		t.Fatalf("joined node %s never got a ProviderID", name)
	}
	cancel()
	w.Stop()
	<-done
	if !sawUninitialised[name] {
		t.Errorf("joined node %s was never seen with the %s taint and no ProviderID", name, testenv.UninitializedTaint)
	}
	checkInitialised(t, node, cluster)
}

func testAudit(t *testing.T, cloud *api.Client, start time.Time, mode cloudcluster.Mode, manager string) {
	entries, err := cloud.Audit(context.Background(), start.Add(-5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Component+"/"+e.Controller+"/"+e.Operation] = true
	}
	want := []string{
		manager + "/service-lb-controller/EnsureLoadBalancer",
		manager + "/service-lb-controller/DeleteLoadBalancer",
		manager + "/node-route-controller/CreateRoute",
		manager + "/cloud-node-lifecycle-controller/GetInstanceByProviderID",
	}
	other := "cloud-controller-manager/"
	if mode == cloudcluster.InTree {
		want = append(want, "kubelet/kubelet/GetInstance")
	} else {
		want = append(want, manager+"/cloud-node-controller/GetInstance")
		other = "kube-controller-manager/"
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no audited call %s", w)
		}
	}
	for k := range seen {
		if strings.HasPrefix(k, other) || (mode == cloudcluster.External && strings.HasPrefix(k, "kubelet/")) {
			t.Errorf("%s called the cloud in %s mode: %s", strings.Split(k, "/")[0], mode, k)
		}
	}
}

// startEchoPods runs an echo pod on each worker and waits for them.
func startEchoPods(t *testing.T, client kubernetes.Interface, cluster string) []*corev1.Pod {
	ctx := context.Background()
	_ = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	var pods []*corev1.Pod
	for i, node := range []string{cluster + "-worker", cluster + "-worker2"} {
		name := fmt.Sprintf("echo-%d", i)
		p, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if p, err = client.CoreV1().Pods("default").Create(ctx, testenv.EchoPod(name, node), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				p = got
			}
			return err == nil && got.Status.Phase == corev1.PodRunning && got.Status.PodIP != "", nil
		})
		if err != nil {
			t.Fatalf("pod %s not running", name)
		}
		pods = append(pods, p)
	}
	return pods
}

func createLBService(t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	if _, err := client.CoreV1().Services("default").Create(context.Background(), testenv.LoadBalancerService(name), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitServed waits until a LoadBalancer Service has an ingress IP that
// answers HTTP from the host.
func waitServed(t *testing.T, client kubernetes.Interface, name string, limit time.Duration) {
	t.Helper()
	var ip, body string
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, limit, true, func(ctx context.Context) (bool, error) {
		got, err := client.CoreV1().Services("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil || len(got.Status.LoadBalancer.Ingress) == 0 {
			return false, nil
		}
		ip = got.Status.LoadBalancer.Ingress[0].IP
		body, err = testenv.HTTPGet("http://" + ip + "/")
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("no answer through the load balancer of %s (ingress %q)", name, ip)
	}
	if !strings.HasPrefix(body, "echo-") {
		t.Fatalf("load balancer of %s answered %q", name, body)
	}
}

func testLoadBalancer(t *testing.T, client kubernetes.Interface, cluster, name string) {
	ctx := context.Background()
	startEchoPods(t, client, cluster)
	createLBService(t, client, name)
	waitServed(t, client, name, 2*time.Minute)
	if err := client.CoreV1().Services("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		ids, err := kexec.OutputLines(kexec.Command("docker", "ps", "-aq", "--filter", "label="+cloudserver.ClusterLabel+"="+cluster, "--filter", "label="+cloudserver.LBLabel))
		return err == nil && len(ids) == 0, nil
	})
	if err != nil {
		t.Fatal("the load balancer container outlived its Service")
	}
}

// testFaults turns on 50% errors and 2 QPS per caller, creates a
// LoadBalancer Service, requires the audit to show the manager's calls
// failing and being retried, then clears the knobs and requires the cluster
// to converge: the Service served, every node's route back in the table.
func testFaults(t *testing.T, client kubernetes.Interface, cloud *api.Client, cluster, manager string) {
	ctx := context.Background()
	startEchoPods(t, client, cluster)
	if err := cloud.SetFaults(ctx, api.Faults{ErrorRate: map[string]float64{"*": 0.5}, ThrottleQPS: 2}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cloud.SetFaults(ctx, api.Faults{}) }()
	start := time.Now()
	createLBService(t, client, "faulty")
	var calls, failed, retried int
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		entries, err := cloud.Audit(ctx, start)
		if err != nil {
			return false, nil
		}
		calls, failed, retried = retries(entries, manager)
		return failed >= 2 && retried >= 1, nil
	})
	if err != nil {
		t.Fatalf("under faults %s made %d calls, %d failed, %d retried after a failure: want failures and retries", manager, calls, failed, retried)
	}
	t.Logf("MEASURED: under 50%% errors + 2 QPS throttling, %s made %d calls in %s: %d failed by injection, %d operations retried after failing",
		manager, calls, time.Since(start).Round(time.Second), failed, retried)
	if err := cloud.SetFaults(ctx, api.Faults{}); err != nil {
		t.Fatal(err)
	}
	waitServed(t, client, "faulty", 3*time.Minute)
	waitRoutes(t, client, cloud, cluster)
	if err := client.CoreV1().Services("default").Delete(ctx, "faulty", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// retries counts a component's calls, the ones failed by injection, and the
// operations (controller + operation + resource) called again after failing.
func retries(entries []api.AuditEntry, component string) (calls, failed, retried int) {
	pending := map[string]bool{}
	for _, e := range entries {
		if e.Component != component {
			continue
		}
		calls++
		key := e.Controller + "/" + e.Operation + "/" + e.Resource
		if pending[key] {
			retried++
			delete(pending, key)
		}
		if e.Fault != "" {
			failed++
			pending[key] = true
		}
	}
	return calls, failed, retried
}

// waitRoutes waits until the cloud has a route for every node's pod CIDR.
func waitRoutes(t *testing.T, client kubernetes.Interface, cloud *api.Client, cluster string) {
	t.Helper()
	var missing []string
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		routes, err := cloud.Routes(ctx, "")
		if err != nil {
			return false, nil
		}
		have := map[string]string{}
		for _, r := range routes {
			have[r.TargetInstance] = r.DestinationCIDR
		}
		missing = nil
		for _, n := range nodes.Items {
			if have[n.Name] != n.Spec.PodCIDR {
				missing = append(missing, n.Name)
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		t.Fatalf("no cloud route for %v", missing)
	}
}

func testRoutes(t *testing.T, c *kindcluster.Cluster, client kubernetes.Interface, cloud *api.Client, cluster string) {
	ctx := context.Background()
	pods := startEchoPods(t, client, cluster)
	cps, err := c.ControlPlanes()
	if err != nil {
		t.Fatal(err)
	}
	reach := func() error {
		return cps[0].Command("kubectl", "exec", pods[0].Name, "--", "handover-echo", "get", "http://"+pods[1].Status.PodIP+":8080/").Run()
	}
	if err := reach(); err != nil {
		t.Fatalf("pods cannot reach each other before the test: %v", err)
	}
	routes, err := cloud.Routes(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	target := ""
	for _, r := range routes {
		if r.TargetInstance == pods[1].Spec.NodeName {
			target = r.Name
		}
	}
	if target == "" {
		t.Fatalf("no cloud route to %s in %+v", pods[1].Spec.NodeName, routes)
	}
	// Hold the route controller off while the route is gone, so its
	// absence is observed whatever the reconcile timing; then let it work.
	if err := cloud.SetFaults(ctx, api.Faults{ErrorRate: map[string]float64{"CreateRoute": 1}}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cloud.SetFaults(ctx, api.Faults{}) }()
	if err := cloud.DeleteRoute(ctx, "", target); err != nil {
		t.Fatal(err)
	}
	if !eventually(60*time.Second, func() bool { return reach() != nil }) {
		t.Fatal("traffic never failed after its cloud route was removed: the route table is not what carries it")
	}
	if err := cloud.SetFaults(ctx, api.Faults{}); err != nil {
		t.Fatal(err)
	}
	if !eventually(90*time.Second, func() bool { return reach() == nil }) {
		t.Fatal("traffic did not recover: the route controller did not restore the route")
	}
	waitRoutes(t, client, cloud, cluster)
}

// eventually polls cond every half second until it holds or limit passes.
func eventually(limit time.Duration, cond func() bool) bool {
	return wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, limit, true, func(context.Context) (bool, error) {
		return cond(), nil
	}) == nil
}
