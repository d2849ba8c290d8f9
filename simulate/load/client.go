package load

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// clientHeadroom is the QPS the load's client allows above the profile's
// API rate, for the load's other requests: Service churn (three a tick,
// and retries) and the node churn's polls (one a second).
const clientHeadroom = 10

// clientFor is the load's own client, limited above the profile's rate so
// that the load's limiter, not client-go's default (5 QPS, burst 10), sets
// the rate; the procedure's client keeps its own limit. Without o.REST it
// is o.Client (unit tests' fakes).
func clientFor(o Options, p Profile) (kubernetes.Interface, error) {
	if o.REST == nil {
		return o.Client, nil
	}
	cfg := rest.CopyConfig(o.REST)
	cfg.QPS = float32(p.APIQPS + clientHeadroom)
	cfg.Burst = int(cfg.QPS)
	cfg.UserAgent = "handover-load" // tells the load's requests from the procedure's in audit logs
	// Protobuf: the load's lists cost handover a fraction of JSON's decoding,
	// and handover's CPU is part of what a rehearsal measures.
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the load's API client for %s: %w", cfg.Host, err)
	}
	return c, nil
}
