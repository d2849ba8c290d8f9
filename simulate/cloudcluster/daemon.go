package cloudcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/internal/procs"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/waits"
)

// StateDir is where a cluster's simcloud keeps state, audit and logs.
func StateDir(cluster string) string {
	return filepath.Join(nodeimage.DefaultCacheDir(), "clusters", cluster, "simcloud")
}

// ensureNetwork creates kind's network if it is missing (kind reuses an
// existing one) and returns its gateway, the host address nodes reach.
func ensureNetwork(ctx context.Context) (string, error) {
	gateway := func() (string, error) {
		out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "network", "inspect", "kind", "--format",
			"{{range .IPAM.Config}}{{.Gateway}} {{end}}"))
		if err != nil {
			return "", err
		}
		for _, f := range strings.Fields(string(out)) {
			if ip := net.ParseIP(f); ip != nil && ip.To4() != nil {
				return f, nil
			}
		}
		return "", fmt.Errorf("kind network has no IPv4 gateway")
	}
	if gw, err := gateway(); err == nil {
		return gw, nil
	}
	create := func(args ...string) error {
		args = append([]string{"network", "create", "-d", "bridge", "-o", "com.docker.network.bridge.enable_ip_masquerade=true"}, args...)
		if out, err := kexec.CombinedOutputLines(kexec.CommandContext(ctx, "docker", append(args, "kind")...)); err != nil {
			return fmt.Errorf("creating kind network: %w: %s", err, strings.Join(out, "; "))
		}
		return nil
	}
	// Made with the subnet Docker picks, then again with that subnet
	// given: a network whose subnet was given lets a node be started at
	// an address of handover's choosing (kindcluster never hands a
	// removed node's address on).
	if err := create(); err != nil {
		return "", err
	}
	if subnet, err := KindSubnet(ctx); err == nil {
		gw, _ := gateway()
		if kexec.CommandContext(ctx, "docker", "network", "rm", "kind").Run() == nil {
			if err := create("--subnet", subnet, "--gateway", gw); err != nil {
				return "", err
			}
		}
	}
	return gateway()
}

// KindSubnet is the kind network's IPv4 subnet: the nodes' network (a
// cloud's VPC, as a provider's face describes it).
func KindSubnet(ctx context.Context) (string, error) {
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "network", "inspect", "kind", "--format",
		"{{range .IPAM.Config}}{{.Subnet}} {{end}}"))
	if err != nil {
		return "", fmt.Errorf("inspecting the kind network: %w", err)
	}
	for _, f := range strings.Fields(string(out)) {
		if ip, _, err := net.ParseCIDR(f); err == nil && ip.To4() != nil {
			return f, nil
		}
	}
	return "", fmt.Errorf("the kind network has no IPv4 subnet")
}

// FreePorts are n TCP ports free on host, each another: a provider's
// endpoints on the kind network's gateway (PrepareInput.Gateway).
func FreePorts(host string, n int) ([]int, error) {
	var ports []int
	for len(ports) < n {
		p, err := freePort(host)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// freePort asks the kernel for a TCP port unused on every one of hosts:
// the cloud listens on the same port wherever its clients are.
func freePort(hosts ...string) (int, error) {
	for range 5 {
		first, err := net.Listen("tcp", net.JoinHostPort(hosts[0], "0"))
		if err != nil {
			return 0, err
		}
		port := first.Addr().(*net.TCPAddr).Port
		ok := true
		for _, h := range hosts[1:] {
			ln, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			ln.Close()
		}
		first.Close()
		if ok {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no TCP port free on all of %v", hosts)
}

// startSimcloud runs `handover simcloud serve` for the cluster in the
// background and writes the cloud configuration nodes mount. The cloud
// listens only where its clients are: the kind network's gateway (nodes)
// and loopback (handover). Every call needs the token in the cloud
// configuration, which only root can read. It returns the URL nodes use.
func startSimcloud(ctx context.Context, self, cluster, podNetwork string, set settings, w wiring) (string, error) {
	gw, err := ensureNetwork(ctx)
	if err != nil {
		return "", err
	}
	port, err := freePort("127.0.0.1", gw)
	if err != nil {
		return "", err
	}
	dir := StateDir(cluster)
	if err := newStateDir(dir, w.provider); err != nil {
		return "", err
	}
	token, err := cloudserver.NewToken()
	if err != nil {
		return "", err
	}
	admin, err := writeAdminToken(dir)
	if err != nil {
		return "", err
	}
	served, err := w.cloud.Prepare(ctx, PrepareInput{Cluster: cluster, Gateway: gw, Vars: set.vars, Policies: set.policies, Network: set.network})
	if err != nil {
		return "", err
	}
	cfg := provider.Config{URL: "http://" + net.JoinHostPort(gw, strconv.Itoa(port)), Token: token, Profile: w.profile, Registry: served.ConfigRegistry}
	raw, _ := json.Marshal(cfg)
	if err := privatefs.WriteFile(filepath.Join(dir, cloudConfigFile), raw); err != nil {
		return "", err
	}
	args := append([]string{"--listen", "127.0.0.1:" + strconv.Itoa(port), "--listen", net.JoinHostPort(gw, strconv.Itoa(port))}, served.Flags...)
	pid, err := spawnSimcloud(self, cluster, dir, podNetwork, args)
	if err != nil {
		return "", err
	}
	local := api.NewClient("http://127.0.0.1:"+strconv.Itoa(port), "handover")
	local.Token = admin
	startTimeout := waits.Of(ctx, WaitCloudStart)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, startTimeout, true, func(ctx context.Context) (bool, error) {
		_, err := local.Faults(ctx)
		return err == nil, nil
	})
	if err != nil {
		stopSimcloud(cluster)
		return "", fmt.Errorf("simcloud (pid %d) did not answer on %s within %s (log: %s)", pid, local.BaseURL, startTimeout, filepath.Join(dir, "simcloud.log"))
	}
	if err := answered(ctx, cluster, served); err != nil {
		return "", err
	}
	return cfg.URL, nil
}

// newStateDir makes a new cluster's state dir, recording its provider. A
// new cluster gets a new cloud: no state from an earlier one of the same
// name (its audit stays readable until then).
func newStateDir(dir string, p providers.Provider) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := privatefs.MkdirAll(dir); err != nil {
		return err
	}
	return recordProvider(dir, p)
}

// answered starts what needs the cloud to answer: the metadata redirect
// (its failure stops the cloud) and the cloud's registry (its failure
// cleans up).
func answered(ctx context.Context, cluster string, served Served) error {
	if served.Metadata != "" {
		// Recorded first: a run killed at any point leaves what the next
		// one's cleanup finds.
		if err := privatefs.WriteFile(filepath.Join(StateDir(cluster), metadataRedirectFile), []byte(served.Metadata+"\n")); err != nil {
			stopSimcloud(cluster)
			return err
		}
		if err := redirectMetadata(ctx, cluster, served.Metadata); err != nil {
			stopSimcloud(cluster)
			return err
		}
	}
	if served.Registry.Host == "" {
		return nil
	}
	if err := startRegistry(ctx, cluster, served.Registry); err != nil {
		return cleanedUp(err, cluster)
	}
	return nil
}

const cloudConfigFile = "cloud-config.json"

// metadataRedirectFile records, in a cluster's state dir, that its cloud
// asked for the metadata address: its cleanup removes the redirect.
const metadataRedirectFile = "metadata-redirect"

// spawnSimcloud starts the server detached (its own session: it outlives
// `cluster create`) and records its pid.
func spawnSimcloud(self, cluster, dir, podNetwork string, more []string) (int, error) {
	logf, err := privatefs.OpenAppend(filepath.Join(dir, "simcloud.log"))
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	args := []string{"simcloud", "serve", "--cluster", cluster, "--state-dir", dir,
		"--cloud-config", filepath.Join(dir, cloudConfigFile), "--admin-token-file", filepath.Join(dir, adminTokenFile),
		"--pod-network", podNetwork}
	args = append(args, more...)
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting simcloud: %w", err)
	}
	pid := cmd.Process.Pid
	// Reaped here if it ends while this process lives (a delete in this
	// process): otherwise it stays a zombie until this process exits,
	// and on a host whose init does not reap, after it too.
	go func() { _ = cmd.Wait() }()
	if err := privatefs.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(pid))); err != nil {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		return 0, err
	}
	return pid, nil
}

// stopSimcloud ends a cluster's simcloud, if one runs, and waits for it to
// be gone: SIGTERM (it writes its state), then SIGKILL after the cloud-stop wait.
func stopSimcloud(cluster string) {
	pid, ok := ServerPID(cluster)
	if !ok {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	gone := func(context.Context) (bool, error) { return !procs.Runs(pid, serverArgs(cluster)), nil }
	if wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, waits.Default(WaitCloudStop), true, gone) != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// ServerPID is the process serving a cluster's simcloud, as recorded when
// it was started, if that process still is the cluster's cloud: a pid file
// outlives its process, and the pid may since belong to anything else.
func ServerPID(cluster string) (int, bool) {
	raw, err := os.ReadFile(filepath.Join(StateDir(cluster), "pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 1 {
		return 0, false
	}
	return pid, procs.Runs(pid, serverArgs(cluster))
}

// serverArgs are what a cluster's cloud has on its command line.
func serverArgs(cluster string) []string {
	return []string{"simcloud", "serve", "--cluster", cluster}
}

// Config is a cluster's cloud configuration: where its simcloud listens
// (reachable from nodes and host) and the token it requires.
func Config(cluster string) (provider.Config, error) {
	var cfg provider.Config
	raw, err := os.ReadFile(filepath.Join(StateDir(cluster), cloudConfigFile))
	if err != nil {
		return cfg, fmt.Errorf("cluster %q has no simulated cloud: %w", cluster, err)
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("reading cluster %q's cloud configuration: %w", cluster, err)
	}
	return cfg, nil
}

// Client calls a cluster's simcloud as component from the host, with the
// admin token: every route, the admin ones (faults, termination, the
// audit) among them.
func Client(cluster, component string) (*api.Client, error) {
	cfg, err := Config(cluster)
	if err != nil {
		return nil, err
	}
	admin, err := AdminToken(cluster)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w (a cluster made before the cloud had an admin token: delete it and create it again)", cluster, err)
	}
	c := api.NewClient(cfg.URL, component)
	c.Token = admin
	return c, nil
}

// ClientIfAny is Client, or nil for a cluster without a simulated cloud
// (a plain kind cluster). A cloud that is there but cannot be called is an
// error, never taken for no cloud: the load, the faults and the cloud's
// evidence would be missing without a word.
func ClientIfAny(cluster, component string) (*api.Client, error) {
	if _, err := os.Stat(filepath.Join(StateDir(cluster), cloudConfigFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return Client(cluster, component)
}
