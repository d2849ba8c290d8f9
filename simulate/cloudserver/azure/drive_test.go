package azure_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver/azure"
)

// TestTheProvidersRunAgainstTheFace drives each azure provider, unchanged
// — the in-tree one of Kubernetes 1.29 as kube-controller-manager
// (drive/intree) and cloud-provider-azure v1.30.4's as
// cloud-controller-manager (drive/ccm), each also as a kubelet asks of
// its own VM — against the face: every step succeeds, no call reaches an
// operation the face does not serve, and the routes and the Service's
// public IP (a load balancer of the cloud) reach the cloud as that
// manager.
func TestTheProvidersRunAgainstTheFace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the providers' modules (minutes on a cold cache)")
	}
	// The route steps take 30 s and more: both providers batch route
	// table writes in a delayed updater that runs every 30 s, and
	// DeleteRoute waits for two of its runs (the route's name with the
	// CIDR, then without: legacy-cloud-providers@v0.29.15
	// azure/azure_routes.go and cloud-provider-azure@v1.30.4
	// pkg/provider/azure_routes.go DeleteRoute).
	for _, d := range []struct{ dir, clientID, principal string }{
		{"intree", kcmClient, "kube-controller-manager"},
		{"ccm", ccmClient, "cloud-controller-manager"},
	} {
		t.Run(d.dir, func(t *testing.T) { drive(t, d.dir, d.clientID, d.principal) })
	}
}

func drive(t *testing.T, dir, clientID, principal string) {
	r := newRig(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	bin := buildDrive(ctx, t, dir)
	cfg, err := azure.ProviderConfig{Network: r.network, ARM: r.armAt, ClientID: clientID, LoadBalancerSku: "standard"}.JSON()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin)
	// The metadata service's fixed address reaches the face through a
	// proxy; ARM, on the loopback address, is never proxied.
	cmd.Env = append(os.Environ(), "HANDOVER_AZURE_CONFIG="+string(cfg), "HANDOVER_AZURE_NODES="+r.nodes("c-worker", "c-local"),
		"HTTP_PROXY="+r.imdsAt, "http_proxy="+r.imdsAt, "NO_PROXY=", "no_proxy=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the %s provider: %v\n%s\n%s", dir, err, out, tail(stderr.String(), 4000))
	}
	t.Logf("the %s provider ran in %s", dir, time.Since(start).Round(time.Second))
	if steps := checkSteps(t, r, out); steps < 15 {
		t.Errorf("only %d steps ran:\n%s\n%s", steps, out, tail(stderr.String(), 4000))
	}
	checkCalls(t, r, principal)
}

// buildDrive builds a drive module's program once, outside the proxy's
// environment.
func buildDrive(ctx context.Context, t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "drive")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("drive", dir)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building drive/%s: %v\n%s", dir, err, tail(string(out), 4000))
	}
	return bin
}

// checkSteps reads the drive's steps: each must succeed, and the
// ProviderID the provider forms is the face's.
func checkSteps(t *testing.T, r *rig, out []byte) int {
	sc := bufio.NewScanner(bytes.NewReader(out))
	steps := 0
	for sc.Scan() {
		var s struct{ Step, Result, Error, Took string }
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		steps++
		if s.Error != "" {
			t.Errorf("%s (%s): %s", s.Step, s.Took, s.Error)
		} else {
			t.Logf("%s (%s): %s", s.Step, s.Took, s.Result)
		}
		if want := r.network.ProviderID("c-worker"); s.Step == "controller: InstanceID of the worker" && "azure://"+s.Result != want {
			t.Errorf("the provider forms the worker's ProviderID azure://%s; the face says %s", s.Result, want)
		}
		if s.Step == "service: EnsureLoadBalancer" && s.Error == "" && !r.back.handedOut(s.Result) {
			t.Errorf("the Service's address %s is not one of the cloud's load balancers", s.Result)
		}
	}
	return steps
}

// checkCalls: no call was refused for want of an operation, none failed
// in the face, and what the cloud carries (routes, and the public IP's
// load balancer: made, given the rule's port and the worker, deleted)
// reached it as the manager.
func checkCalls(t *testing.T, r *rig, principal string) {
	called := map[string]int{}
	for _, rec := range r.calls() {
		called[rec.Service+":"+rec.Action]++
		switch {
		case rec.Unimplemented || rec.Status >= 500:
			t.Errorf("%s %s answered %d %s %s", rec.Service, rec.Action, rec.Status, rec.Code, rec.Message)
		case rec.Status >= 400:
			t.Logf("refused, as Azure would: %s %s: %d %s", rec.Action, rec.Resource, rec.Status, rec.Code)
		}
	}
	t.Logf("Azure calls: %v", called)
	for _, op := range []string{"arm:Microsoft.Network/routeTables/write", "arm:Microsoft.Network/loadBalancers/write",
		"arm:Microsoft.Network/networkInterfaces/write", "arm:Microsoft.Network/publicIPAddresses/delete"} {
		if called[op] == 0 {
			t.Errorf("the provider never called %s", op)
		}
	}
	audit, err := r.admin().Audit(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	for _, e := range audit {
		if e.Component == principal && e.Status < 300 {
			reached[e.Operation] = true
		}
	}
	for _, op := range []string{"CreateRoute", "DeleteRoute", "GetInstance", "arm:Microsoft.Network/loadBalancers/read", "EnsureLoadBalancer", "UpdateLoadBalancer", "DeleteLoadBalancer"} {
		if !reached[op] {
			t.Errorf("the cloud's audit has no %s by %s: %v", op, principal, reached)
		}
	}
}

// nodes are the rig's instances as their Nodes: NAME=PROVIDERID,...
func (r *rig) nodes(names ...string) string {
	var out []string
	for _, n := range names {
		out = append(out, n+"="+r.network.ProviderID(n))
	}
	return strings.Join(out, ",")
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
