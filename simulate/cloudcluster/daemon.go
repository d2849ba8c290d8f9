package cloudcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/simulate/cloud/provider"
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
	if _, err := kexec.CombinedOutputLines(kexec.CommandContext(ctx, "docker", "network", "create", "-d", "bridge",
		"-o", "com.docker.network.bridge.enable_ip_masquerade=true", "kind")); err != nil {
		return "", fmt.Errorf("creating kind network: %w", err)
	}
	return gateway()
}

// freePort asks the kernel for an unused TCP port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startSimcloud runs `handover simcloud serve` for the cluster in the
// background and writes the cloud configuration nodes mount. It returns the
// URL nodes use.
func startSimcloud(ctx context.Context, self, cluster string) (string, error) {
	gw, err := ensureNetwork(ctx)
	if err != nil {
		return "", err
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	dir := StateDir(cluster)
	// A new cluster gets a new cloud: no state from an earlier one of the
	// same name (its audit stays readable until then).
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	url := "http://" + net.JoinHostPort(gw, strconv.Itoa(port))
	cfg, _ := json.Marshal(provider.Config{URL: url})
	if err := os.WriteFile(filepath.Join(dir, "cloud-config.json"), cfg, 0o644); err != nil {
		return "", err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "simcloud.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", err
	}
	defer logf.Close()
	cmd := exec.Command(self, "simcloud", "serve", "--cluster", cluster, "--listen", "0.0.0.0:"+strconv.Itoa(port), "--state-dir", dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting simcloud: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		return "", err
	}
	_ = cmd.Process.Release()
	local := "http://127.0.0.1:" + strconv.Itoa(port)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		resp, err := http.Get(local + "/v1/faults")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return "", fmt.Errorf("simcloud did not answer on %s (log: %s)", local, filepath.Join(dir, "simcloud.log"))
	}
	return url, nil
}

// stopSimcloud ends a cluster's simcloud, if one runs.
func stopSimcloud(cluster string) {
	if pid, ok := ServerPID(cluster); ok {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
}

// ServerPID is the process serving a cluster's simcloud, as recorded when
// it was started.
func ServerPID(cluster string) (int, bool) {
	raw, err := os.ReadFile(filepath.Join(StateDir(cluster), "pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	return pid, err == nil
}

// URL is the simcloud address of a cluster (reachable from nodes and host).
func URL(cluster string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(StateDir(cluster), "cloud-config.json"))
	if err != nil {
		return "", fmt.Errorf("cluster %q has no simulated cloud: %w", cluster, err)
	}
	var cfg provider.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return "", err
	}
	return cfg.URL, nil
}
