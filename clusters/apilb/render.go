package apilb

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
)

// ClusterName is the upstream cluster kind's configuration names.
const ClusterName = "kube_apiservers"

// RenderCDS writes a CDS file for the API servers at the given host:port
// addresses, in the shape kind itself writes (so either side can read it).
func RenderCDS(servers []string) (string, error) {
	sorted := append([]string(nil), servers...)
	sort.Strings(sorted)
	var b strings.Builder
	b.WriteString(`resources:
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: ` + ClusterName + `
  connect_timeout: 0.25s
  type: STRICT_DNS
  lb_policy: ROUND_ROBIN
  dns_lookup_family: V4_PREFERRED
  health_checks:
  - timeout: 3s
    interval: 2s
    unhealthy_threshold: 2
    healthy_threshold: 1
    initial_jitter: 0s
    no_traffic_interval: 3s
    http_health_check:
      path: /healthz
    transport_socket_match_criteria:
      tls_mode: "true"
  transport_socket_matches:
  - name: "health_check_tls"
    match:
      tls_mode: "true"
    transport_socket:
      name: envoy.transport_sockets.tls
  load_assignment:
    cluster_name: ` + ClusterName + `
    endpoints:
    - lb_endpoints:
`)
	for _, s := range sorted {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			return "", fmt.Errorf("backend %q: %w", s, err)
		}
		if _, err := strconv.Atoi(port); err != nil {
			return "", fmt.Errorf("backend %q: bad port", s)
		}
		fmt.Fprintf(&b, "      - endpoint:\n          address:\n            socket_address:\n              address: %s\n              port_value: %s\n", host, port)
	}
	return b.String(), nil
}
