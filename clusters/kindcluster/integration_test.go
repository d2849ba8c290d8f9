package kindcluster_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/testenv"
)

func TestClusterLifecycle(t *testing.T) {
	topo := topology.Default()
	topo.Name = "handover-it"
	testenv.RequireIntegration(t, topo.Kubernetes)
	ctx := context.Background()
	logger := testenv.Logger{T: t}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	// Volumes no container uses any more are what a delete would leak.
	volumesBefore := dockerLines(t, "volume", "ls", "-q", "--filter", "dangling=true")

	start := time.Now()
	c, err := kindcluster.Create(ctx, topo, kindcluster.CreateOptions{Logger: logger, KubeconfigPath: kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURED: created a %d+%d cluster in %s", topo.ControlPlanes, topo.Workers, time.Since(start).Round(time.Second))
	deleted := false
	t.Cleanup(func() {
		if t.Failed() {
			dir := testenv.ArtifactsDir(t)
			t.Logf("collecting node logs into %s", dir)
			_ = c.CollectLogs(dir)
		}
		if !deleted {
			_ = c.Delete(context.Background(), kubeconfig)
		}
	})
	client, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("all nodes Ready", func(t *testing.T) {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes.Items) != topo.ControlPlanes+topo.Workers {
			t.Fatalf("want %d nodes, have %d", topo.ControlPlanes+topo.Workers, len(nodes.Items))
		}
		for _, n := range nodes.Items {
			if !kindcluster.NodeReady(&n) {
				t.Errorf("node %s not Ready", n.Name)
			}
		}
	})
	t.Run("pods on different workers reach each other", func(t *testing.T) {
		testPodNetwork(t, c, client)
	})
	t.Run("NodePort answers on every node from the host", func(t *testing.T) {
		testNodePort(t, client)
	})
	t.Run("API loses no request while a control plane is added and an original removed", func(t *testing.T) {
		testReplaceControlPlane(t, c, client, topo)
	})
	t.Run("delete leaves nothing behind", func(t *testing.T) {
		if err := c.Delete(ctx, kubeconfig); err != nil {
			t.Fatal(err)
		}
		deleted = true
		if left := dockerLines(t, "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster="+topo.Name, "--format", "{{.Names}}"); len(left) > 0 {
			t.Errorf("containers left: %v", left)
		}
		if others := dockerLines(t, "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster", "-q"); len(others) == 0 {
			if nets := dockerLines(t, "network", "ls", "--filter", "name=^kind$", "-q"); len(nets) > 0 {
				t.Errorf("kind network left although no cluster remains")
			}
		}
		if after := dockerLines(t, "volume", "ls", "-q", "--filter", "dangling=true"); len(after) > len(volumesBefore) {
			t.Errorf("volumes left: before %d, after %d", len(volumesBefore), len(after))
		}
	})
}

func dockerLines(t *testing.T, args ...string) []string {
	t.Helper()
	lines, err := kexec.OutputLines(kexec.Command("docker", args...))
	if err != nil {
		t.Fatalf("docker %v: %v", args, err)
	}
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// apiPoller sends one request through the cluster endpoint every interval
// and counts the ones that fail.
type apiPoller struct {
	mu       sync.Mutex
	sent     int
	failures []string
	slowest  time.Duration
}

func (p *apiPoller) run(ctx context.Context, client kubernetes.Interface, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		start := time.Now()
		_, err := client.CoreV1().Namespaces().Get(rctx, "kube-system", metav1.GetOptions{})
		took := time.Since(start)
		cancel()
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		p.sent++
		if took > p.slowest {
			p.slowest = took
		}
		if err != nil {
			p.failures = append(p.failures, fmt.Sprintf("%s: %v", start.Format(time.RFC3339Nano), err))
		}
		p.mu.Unlock()
	}
}

// etcdLeaderChanged is etcd's answer to a linearizable read that was
// waiting for its read index when leadership moved (etcd v3.5
// server/etcdserver/v3_server.go, requestCurrentIndex: ErrLeaderChanged).
// Removing the member that leads hands leadership over first, so a read in
// flight at that instant gets this answer by etcd's design; any other
// failure, or more than one such answer for the one hand-off, is a lost
// request.
const etcdLeaderChanged = "etcdserver: leader changed"

// maxLeaderChangedAnswers: one removal, at most one hand-off, and the
// poller has one request in flight at a time.
const maxLeaderChangedAnswers = 1

func splitLeaderChanged(failures []string) (lost, handOff []string) {
	for _, f := range failures {
		if strings.Contains(f, etcdLeaderChanged) {
			handOff = append(handOff, f)
		} else {
			lost = append(lost, f)
		}
	}
	return lost, handOff
}

func testReplaceControlPlane(t *testing.T, c *kindcluster.Cluster, client kubernetes.Interface, topo topology.Topology) {
	ctx := context.Background()
	cps, err := c.ControlPlanes()
	if err != nil {
		t.Fatal(err)
	}
	original := cps[0].String() // the node kind bootstrapped the cluster on
	pollCtx, stop := context.WithCancel(ctx)
	p := &apiPoller{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.run(pollCtx, client, 250*time.Millisecond) }()

	added, err := c.AddNode(ctx, kindcluster.AddNodeOptions{Role: kindcluster.RoleControlPlane})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	if err := c.RemoveNode(ctx, original); err != nil {
		stop()
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // a few more requests against the final set
	stop()
	wg.Wait()
	t.Logf("MEASURED: %d API requests every 250ms while adding %s and removing %s: %d failed, slowest %s",
		p.sent, added, original, len(p.failures), p.slowest.Round(time.Millisecond))
	if p.sent < 20 {
		t.Fatalf("only %d requests were sent: the poller did not run", p.sent)
	}
	lost, handOff := splitLeaderChanged(p.failures)
	if len(lost) > 0 || len(handOff) > maxLeaderChangedAnswers {
		t.Fatalf("%d of %d requests failed:\n%s", len(p.failures), p.sent, strings.Join(p.failures, "\n"))
	}
	if len(handOff) > 0 {
		t.Logf("MEASURED: %d read answered %q during the etcd leadership hand-off", len(handOff), etcdLeaderChanged)
	}
	members, err := c.EtcdMembers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != topo.ControlPlanes {
		t.Fatalf("etcd members %v: want %d", members, topo.ControlPlanes)
	}
	for _, m := range members {
		if m == original {
			t.Fatalf("removed node %s is still an etcd member: %v", original, members)
		}
	}
	if _, err := client.CoreV1().Nodes().Get(ctx, original, metav1.GetOptions{}); err == nil {
		t.Fatalf("Node %s still exists", original)
	}
}
