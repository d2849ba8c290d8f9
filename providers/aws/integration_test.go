package aws_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
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
	"github.com/handover-sh/handover/providers/aws"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// The aws provider's own code on kind: the in-tree provider of
// kube-controller-manager and kubelet v1.26.13, and cloud-provider-aws
// v1.27.2's manager on v1.27.4, each against the simulated EC2, ELB and
// metadata service.
func TestAWSCloudInTree(t *testing.T) {
	testAWSCloud(t, cloudcluster.InTree, "v1.26.13", "kube-controller-manager", "kubelet")
}

func TestAWSCloudExternal(t *testing.T) {
	testAWSCloud(t, cloudcluster.External, "v1.27.4", "cloud-controller-manager")
}

func testAWSCloud(t *testing.T, mode cloudcluster.Mode, version string, callers ...string) {
	topo := topology.Default()
	topo.Name, topo.Kubernetes, topo.ControlPlanes, topo.Workers = "handover-aws-"+string(mode), version, 1, 2
	testenv.RequireIntegration(t, topo.Kubernetes)
	ctx := context.Background()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	c, err := cloudcluster.Create(ctx, topo, mode, cloudcluster.DaemonSet,
		kindcluster.CreateOptions{Logger: testenv.Logger{T: t}, KubeconfigPath: kubeconfig}, testenv.HandoverBinary(t), cloudcluster.WithProvider(aws.Name))
	if err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(cloudcluster.StateDir(topo.Name), "aws-calls.jsonl")
	t.Cleanup(func() {
		if t.Failed() {
			_ = c.CollectLogs(testenv.ArtifactsDir(t))
			_ = testenv.CopyFile(calls, filepath.Join(testenv.ArtifactsDir(t), "aws-calls.jsonl"))
		}
		_ = cloudcluster.Delete(context.Background(), topo.Name, kubeconfig, testenv.Logger{T: t})
		if out, _ := kexec.Output(kexec.Command("iptables", "-w", "-t", "nat", "-S", "PREROUTING")); strings.Contains(string(out), topo.Name) {
			t.Errorf("the metadata redirect outlived the cluster:\n%s", out)
		}
	})
	client, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	cloud, err := cloudcluster.Client(topo.Name, "handover-test")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // container → Node
	t.Run("every node is named, identified and placed as on EC2", func(t *testing.T) {
		names = checkAWSIdentity(t, client, cloud, topo.Name)
	})
	t.Run("a LoadBalancer Service gets an ELB that carries traffic", func(t *testing.T) {
		testELB(t, client, cloud, names[topo.Name+"-worker"], names[topo.Name+"-worker2"])
	})
	t.Run("cross-node pod traffic follows the routes the provider made", func(t *testing.T) {
		pods := startEchoPodsOn(t, client, names[topo.Name+"-worker"], names[topo.Name+"-worker2"])
		cps, err := c.ControlPlanes()
		if err != nil {
			t.Fatal(err)
		}
		if err := cps[0].Command("kubectl", "--kubeconfig=/etc/kubernetes/admin.conf", "exec", pods[0].Name, "--",
			"handover-echo", "get", "http://"+pods[1].Status.PodIP+":8080/").Run(); err != nil {
			t.Fatalf("a pod on %s cannot reach one on %s: %v", pods[0].Spec.NodeName, pods[1].Spec.NodeName, err)
		}
	})
	t.Run("the AWS calls: all served, by "+strings.Join(callers, " and ")+" alone", func(t *testing.T) {
		checkAWSCalls(t, calls, callers)
	})
}

// checkAWSIdentity: each node container's Node is named by the private
// DNS name of its instance's address, with the ProviderID, zone and
// instance type the provider reads from the simulated EC2, and
// initialised. It returns container → Node name.
func checkAWSIdentity(t *testing.T, client kubernetes.Interface, cloud *api.Client, cluster string) map[string]string {
	ctx := context.Background()
	instances, err := cloud.Instances(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]corev1.Node{}
	for _, n := range nodes.Items {
		byName[n.Name] = n
	}
	out := map[string]string{}
	for _, in := range instances {
		var ip string
		for _, a := range in.Addresses {
			if a.Type == "InternalIP" {
				ip = a.Address
			}
		}
		name := amazon.PrivateDNSName(ip, cloudserver.Region)
		n, ok := byName[name]
		if !ok {
			t.Errorf("instance %s (%s): no Node %s", in.Name, ip, name)
			continue
		}
		out[in.Name] = name
		if want := amazon.ProviderID(cluster, in); n.Spec.ProviderID != want {
			t.Errorf("%s: ProviderID %q, want %q", name, n.Spec.ProviderID, want)
		}
		if n.Labels["topology.kubernetes.io/zone"] != in.Zone || n.Labels["node.kubernetes.io/instance-type"] != in.Type {
			t.Errorf("%s: labels %v, want zone %s and type %s", name, n.Labels, in.Zone, in.Type)
		}
		for _, taint := range n.Spec.Taints {
			if taint.Key == testenv.UninitializedTaint {
				t.Errorf("%s still has the %s taint", name, testenv.UninitializedTaint)
			}
		}
	}
	if len(out) != len(nodes.Items) {
		t.Errorf("%d Nodes for %d instances", len(nodes.Items), len(out))
	}
	return out
}

// testELB: the Service's ingress is the ELB's DNS name, and the cloud's
// load balancer behind it answers from the host.
func testELB(t *testing.T, client kubernetes.Interface, cloud *api.Client, nodes ...string) {
	ctx := context.Background()
	startEchoPodsOn(t, client, nodes...)
	if _, err := client.CoreV1().Services("default").Create(ctx, testenv.LoadBalancerService("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var hostname, body string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := client.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil || len(got.Status.LoadBalancer.Ingress) == 0 {
			return false, nil
		}
		hostname = got.Status.LoadBalancer.Ingress[0].Hostname
		// The ELB's name is its DNS name's first label up to the last "-".
		label, _, _ := strings.Cut(hostname, ".")
		name := label[:max(0, strings.LastIndex(label, "-"))]
		lb, err := cloud.LoadBalancer(ctx, "", name)
		if err != nil || lb.IP == "" {
			return false, nil
		}
		body, err = testenv.HTTPGet("http://" + lb.IP + "/")
		return err == nil, nil
	})
	if err != nil || !strings.HasSuffix(hostname, ".elb.amazonaws.com") || !strings.HasPrefix(body, "echo-") {
		t.Fatalf("no ELB answering for the Service: ingress %q, answer %q", hostname, body)
	}
}

// startEchoPodsOn runs an echo pod on each named Node and waits for them.
func startEchoPodsOn(t *testing.T, client kubernetes.Interface, nodes ...string) []*corev1.Pod {
	t.Helper()
	ctx := context.Background()
	_ = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	var pods []*corev1.Pod
	for i, node := range nodes {
		name := "echo-" + string(rune('a'+i))
		if _, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{}); err != nil {
			if _, err := client.CoreV1().Pods("default").Create(ctx, testenv.EchoPod(name, node), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		var p *corev1.Pod
		err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			p = got
			return err == nil && got.Status.Phase == corev1.PodRunning && got.Status.PodIP != "", nil
		})
		if err != nil {
			t.Fatalf("pod %s on %s not running", name, node)
		}
		pods = append(pods, p)
	}
	return pods
}

// checkAWSCalls: every call answered (no unimplemented action, no refused
// signature), and made by the expected components alone.
func checkAWSCalls(t *testing.T, path string, callers []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	by := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r awsapi.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		by[r.Principal]++
		if r.Unimplemented || r.Status == 401 || r.Status == 403 {
			t.Errorf("%s %s:%s answered %d (unimplemented: %v)", r.Principal, r.Service, r.Action, r.Status, r.Unimplemented)
		}
	}
	for _, c := range callers {
		if by[c] == 0 {
			t.Errorf("%s made no AWS call", c)
		}
		delete(by, c)
	}
	if len(by) > 0 {
		t.Errorf("others called AWS: %v", by)
	}
}
