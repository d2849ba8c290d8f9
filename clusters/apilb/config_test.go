package apilb

import (
	"reflect"
	"testing"
	"time"
)

// kindCDS mirrors what kind v0.33 renders for two control planes.
const kindCDS = `
resources:
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: kube_apiservers
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
    http_health_check:
      path: /healthz
    transport_socket_match_criteria:
      tls_mode: "true"
  transport_socket_matches:
  - name: "health_check_tls"
  load_assignment:
    cluster_name: kube_apiservers
    endpoints:
    - lb_endpoints:
      - endpoint:
          address:
            socket_address:
              address: 172.18.0.3
              port_value: 6443
      - endpoint:
          address:
            socket_address:
              address: 172.18.0.4
              port_value: 6443
`

func TestParseKindCDS(t *testing.T) {
	got, err := ParseCDS([]byte(kindCDS))
	if err != nil {
		t.Fatal(err)
	}
	want := []Cluster{{Name: "kube_apiservers", ConnectTimeout: 250 * time.Millisecond,
		Endpoints: []string{"172.18.0.3:6443", "172.18.0.4:6443"}, CheckPath: "/healthz", CheckTLS: true,
		CheckInterval: 2 * time.Second, CheckTimeout: 3 * time.Second, UnhealthyThreshold: 2, HealthyThreshold: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestRenderRoundTrips(t *testing.T) {
	out, err := RenderCDS([]string{"172.18.0.9:6443", "172.18.0.3:6443"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseCDS([]byte(out))
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	if !reflect.DeepEqual(got[0].Endpoints, []string{"172.18.0.3:6443", "172.18.0.9:6443"}) || !got[0].CheckTLS {
		t.Fatalf("round trip lost data: %+v", got[0])
	}
	if _, err := RenderCDS([]string{"no-port"}); err == nil {
		t.Fatal("want error for a backend without port")
	}
}

func TestParseLDSAndBootstrap(t *testing.T) {
	lds := `
resources:
- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: listener_apiserver
  address:
    socket_address:
      address: "0.0.0.0"
      port_value: 6443
  filter_chains:
  - filters:
    - name: envoy.filters.network.tcp_proxy
      typed_config:
        cluster: kube_apiservers
`
	ls, err := ParseLDS([]byte(lds))
	if err != nil || !reflect.DeepEqual(ls, []Listener{{Address: "0.0.0.0:6443", Cluster: "kube_apiservers"}}) {
		t.Fatalf("%+v %v", ls, err)
	}
	if _, err := ParseLDS([]byte("resources: [{address: {socket_address: {address: x, port_value: 1}}}]")); err == nil {
		t.Fatal("want error for a listener without cluster")
	}
	b, err := ParseBootstrap([]byte("dynamic_resources:\n  cds_config:\n    path_config_source:\n      path: /c\n  lds_config:\n    path_config_source:\n      path: /l\n"))
	if err != nil || b != (Bootstrap{CDSPath: "/c", LDSPath: "/l"}) {
		t.Fatalf("%+v %v", b, err)
	}
	if _, err := ParseBootstrap([]byte("admin: {}")); err == nil {
		t.Fatal("want error for bootstrap without paths")
	}
}
