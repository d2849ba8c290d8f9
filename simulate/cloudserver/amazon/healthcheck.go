package amazon

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// healthCheck is a classic load balancer's health check as the cloud's
// load balancer runs it: its target (PROTOCOL:PORT[/PATH], the Target
// element of ELB's HealthCheck), interval, timeout and thresholds, as
// configured. ELB checks HTTPS and SSL targets over TLS; the cloud's load
// balancer connects to their port without TLS (the providers configure
// only TCP and HTTP targets: aws_loadbalancer.go).
func healthCheck(hc *elb.HealthCheck) (*api.HealthCheck, error) {
	target := aws.StringValue(hc.Target)
	proto, rest, ok := strings.Cut(target, ":")
	port, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		port, path = rest[:i], rest[i:]
	}
	n, err := strconv.Atoi(port)
	proto = strings.ToUpper(proto)
	switch {
	case !ok || err != nil || n < 1 || n > 65535:
		return nil, badTarget(target)
	case proto == "TCP" || proto == "SSL":
		if path != "" {
			return nil, badTarget(target)
		}
		proto = "TCP"
	case proto == "HTTP" || proto == "HTTPS":
		if path == "" {
			return nil, badTarget(target)
		}
		proto = "HTTP"
	default:
		return nil, badTarget(target)
	}
	return &api.HealthCheck{Protocol: proto, Port: int32(n), Path: path, Interval: int32(aws.Int64Value(hc.Interval)),
		Timeout: int32(aws.Int64Value(hc.Timeout)), Healthy: int32(aws.Int64Value(hc.HealthyThreshold)), Unhealthy: int32(aws.Int64Value(hc.UnhealthyThreshold))}, nil
}

func badTarget(target string) *awsapi.Error {
	return awsapi.Errorf("ValidationError", "Invalid health check target: %s", target)
}
