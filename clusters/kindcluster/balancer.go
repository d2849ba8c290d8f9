package kindcluster

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/clusters/apilb"
	"github.com/handover-sh/handover/waits"
)

// apiServerPort is where every control plane's API server listens.
const apiServerPort = "6443"

// syncBalancer points the control-plane balancer at every control plane
// except exclude, then waits until the balancer reports exactly that set,
// with every remaining backend healthy. Clusters with one control plane have
// no balancer and nothing to do.
func (c *Cluster) syncBalancer(ctx context.Context, exclude string) error {
	lb, err := c.balancer()
	if err != nil || lb == nil {
		return err
	}
	cps, err := c.ControlPlanes()
	if err != nil {
		return err
	}
	var want []string
	for _, n := range cps {
		if n.String() == exclude {
			continue
		}
		ip, _, err := n.IP()
		if err != nil {
			return err
		}
		want = append(want, net.JoinHostPort(ip, apiServerPort))
	}
	cds, err := apilb.RenderCDS(want)
	if err != nil {
		return err
	}
	if err := c.writeFile(ctx, lb, apilb.CDSPath, cds); err != nil { // Envoy reloads on the rename
		return err
	}
	lbIP, _, err := lb.IP()
	if err != nil {
		return err
	}
	return waitBackends(ctx, lbIP, want, waits.Of(ctx, WaitBalancerHealthy))
}

// waitBackends polls the balancer's admin endpoint until its backends are
// exactly want and all healthy.
func waitBackends(ctx context.Context, lbIP string, want []string, limit time.Duration) error {
	url := "http://" + net.JoinHostPort(lbIP, strconv.Itoa(apilb.AdminPort)) + "/clusters"
	client := &http.Client{Timeout: 2 * time.Second}
	var have map[string]bool
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		have = readBackends(ctx, client, url)
		return sameHealthy(have, want), nil
	})
	if err != nil {
		return fmt.Errorf("balancer backends are %v after %s, want %v all healthy", have, limit, want)
	}
	return nil
}

// readBackends maps backend address to health from the admin listing.
func readBackends(ctx context.Context, client *http.Client, url string) map[string]bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		// kube_apiservers::ADDR::healthy::BOOL::active::N
		f := strings.Split(sc.Text(), "::")
		if len(f) >= 4 {
			out[f[1]] = f[3] == "true"
		}
	}
	return out
}

func sameHealthy(have map[string]bool, want []string) bool {
	if len(have) != len(want) {
		return false
	}
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}
