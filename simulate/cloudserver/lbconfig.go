package cloudserver

import (
	"archive/tar"
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// LBConfig is what a load-balancer container serves.
type LBConfig struct {
	Listeners []LBListener `json:"listeners"`
	// HealthCheck, when set, judges every listener's backends by their
	// node, as a cloud's load balancer checks its instances.
	HealthCheck *api.HealthCheck `json:"healthCheck,omitempty"`
	// Dropped are the node address:port pairs the network drops the
	// load balancer's traffic to (api.LoadBalancerSpec.Dropped).
	Dropped []string `json:"dropped,omitempty"`
	// Draining is what becomes of a backend's open connections as it
	// goes (api.LoadBalancerSpec.Draining).
	Draining *api.Draining `json:"draining,omitempty"`
}

// LBListener relays one port to the node port on every backend node.
type LBListener struct {
	Port     int32    `json:"port"`
	Protocol string   `json:"protocol"`
	Backends []string `json:"backends"` // host:port
}

// LBConfigFor translates a load balancer spec.
func LBConfigFor(spec api.LoadBalancerSpec) LBConfig {
	cfg := LBConfig{HealthCheck: spec.HealthCheck, Dropped: spec.Dropped, Draining: spec.Draining}
	for _, p := range spec.Ports {
		l := LBListener{Port: p.Port, Protocol: strings.ToUpper(p.Protocol)}
		for _, n := range spec.Nodes {
			l.Backends = append(l.Backends, net.JoinHostPort(n, strconv.Itoa(int(p.NodePort))))
		}
		cfg.Listeners = append(cfg.Listeners, l)
	}
	return cfg
}

func singleFileTar(path string, data []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := path[:strings.LastIndex(path, "/")]
	if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(dir, "/") + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: time.Now()}); err != nil {
		return nil, err
	}
	if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(path, "/"), Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: time.Now()}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, fmt.Errorf("tar: %w", err)
	}
	return buf.Bytes(), tw.Close()
}
