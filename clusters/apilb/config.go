package apilb

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"sigs.k8s.io/yaml"
)

// Bootstrap is the part of Envoy's bootstrap file kind writes that matters here.
type Bootstrap struct {
	CDSPath string
	LDSPath string
}

// Cluster is one upstream cluster from a CDS file.
type Cluster struct {
	Name               string
	ConnectTimeout     time.Duration
	Endpoints          []string // host:port
	CheckPath          string
	CheckTLS           bool
	CheckInterval      time.Duration
	CheckTimeout       time.Duration
	UnhealthyThreshold int
	HealthyThreshold   int
}

// Listener is one TCP listener from an LDS file.
type Listener struct {
	Address string // host:port
	Cluster string
}

type socketAddress struct {
	Address   string `json:"address"`
	PortValue int    `json:"port_value"`
}

func (s socketAddress) hostPort() string {
	return net.JoinHostPort(s.Address, strconv.Itoa(s.PortValue))
}

type pathSource struct {
	PathConfigSource struct {
		Path string `json:"path"`
	} `json:"path_config_source"`
}

// ParseBootstrap reads the dynamic-resource paths from an Envoy bootstrap.
func ParseBootstrap(data []byte) (Bootstrap, error) {
	var doc struct {
		DynamicResources struct {
			CDS pathSource `json:"cds_config"`
			LDS pathSource `json:"lds_config"`
		} `json:"dynamic_resources"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Bootstrap{}, fmt.Errorf("parsing bootstrap: %w", err)
	}
	b := Bootstrap{CDSPath: doc.DynamicResources.CDS.PathConfigSource.Path, LDSPath: doc.DynamicResources.LDS.PathConfigSource.Path}
	if b.CDSPath == "" || b.LDSPath == "" {
		return b, fmt.Errorf("bootstrap lacks dynamic_resources cds_config/lds_config paths")
	}
	return b, nil
}

type cdsDoc struct {
	Resources []struct {
		Name           string `json:"name"`
		ConnectTimeout string `json:"connect_timeout"`
		HealthChecks   []struct {
			Timeout            string `json:"timeout"`
			Interval           string `json:"interval"`
			UnhealthyThreshold int    `json:"unhealthy_threshold"`
			HealthyThreshold   int    `json:"healthy_threshold"`
			HTTPHealthCheck    *struct {
				Path string `json:"path"`
			} `json:"http_health_check"`
		} `json:"health_checks"`
		TransportSocketMatches []any `json:"transport_socket_matches"`
		LoadAssignment         struct {
			Endpoints []struct {
				LBEndpoints []struct {
					Endpoint struct {
						Address struct {
							SocketAddress socketAddress `json:"socket_address"`
						} `json:"address"`
					} `json:"endpoint"`
				} `json:"lb_endpoints"`
			} `json:"endpoints"`
		} `json:"load_assignment"`
	} `json:"resources"`
}

// ParseCDS reads the clusters of a CDS file.
func ParseCDS(data []byte) ([]Cluster, error) {
	var doc cdsDoc
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parsing CDS: %w", err)
	}
	var out []Cluster
	for _, r := range doc.Resources {
		c := Cluster{Name: r.Name, ConnectTimeout: duration(r.ConnectTimeout), CheckTLS: len(r.TransportSocketMatches) > 0}
		if len(r.HealthChecks) > 0 {
			hc := r.HealthChecks[0]
			c.CheckInterval, c.CheckTimeout = duration(hc.Interval), duration(hc.Timeout)
			c.UnhealthyThreshold, c.HealthyThreshold = hc.UnhealthyThreshold, hc.HealthyThreshold
			if hc.HTTPHealthCheck != nil {
				c.CheckPath = hc.HTTPHealthCheck.Path
			}
		}
		for _, e := range r.LoadAssignment.Endpoints {
			for _, lb := range e.LBEndpoints {
				c.Endpoints = append(c.Endpoints, lb.Endpoint.Address.SocketAddress.hostPort())
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseLDS reads the TCP-proxy listeners of an LDS file.
func ParseLDS(data []byte) ([]Listener, error) {
	var doc struct {
		Resources []struct {
			Address struct {
				SocketAddress socketAddress `json:"socket_address"`
			} `json:"address"`
			FilterChains []struct {
				Filters []struct {
					TypedConfig struct {
						Cluster string `json:"cluster"`
					} `json:"typed_config"`
				} `json:"filters"`
			} `json:"filter_chains"`
		} `json:"resources"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parsing LDS: %w", err)
	}
	var out []Listener
	for _, r := range doc.Resources {
		l := Listener{Address: r.Address.SocketAddress.hostPort()}
		for _, fc := range r.FilterChains {
			for _, f := range fc.Filters {
				if f.TypedConfig.Cluster != "" {
					l.Cluster = f.TypedConfig.Cluster
				}
			}
		}
		if l.Cluster == "" {
			return nil, fmt.Errorf("listener on %s has no tcp_proxy cluster", l.Address)
		}
		out = append(out, l)
	}
	return out, nil
}

// duration parses Envoy's "0.25s" style durations; bad or empty values are 0.
func duration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return d
}
