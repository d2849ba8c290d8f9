package amazon

import (
	"context"
	"sync"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// IMDSComponent is the caller the metadata service lists instances as:
// handover's own, so the cloud's throttle never holds it (a real metadata
// service is not the account's API).
const IMDSComponent = "handover-imds"

// IMDS is the instance metadata service over the cloud's instances.
func (f *Face) IMDS(requireToken bool) *awsapi.IMDS {
	l := &instanceLookup{face: f, ttl: time.Second}
	return &awsapi.IMDS{Lookup: l.lookup, RequireToken: requireToken, Now: f.opts.Now}
}

// instanceLookup finds an instance by address from a listing at most ttl
// old: every process on a node asks at start.
type instanceLookup struct {
	face   *Face
	ttl    time.Duration
	mu     sync.Mutex
	listed time.Time
	byIP   map[string]api.Instance
}

func (l *instanceLookup) lookup(ip string) (awsapi.Instance, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); l.byIP == nil || now.Sub(l.listed) > l.ttl {
		c := *l.face.opts.Cloud
		c.Component = IMDSComponent
		all, err := c.Instances(context.Background(), "instance-metadata")
		if err != nil {
			return awsapi.Instance{}, false, err
		}
		l.byIP, l.listed = map[string]api.Instance{}, now
		for _, in := range all {
			l.byIP[internalIP(in)] = in
		}
	}
	in, ok := l.byIP[ip]
	if !ok {
		return awsapi.Instance{}, false, nil
	}
	return l.face.metadata(in), true, nil
}

// metadata is what the service tells an instance of itself.
func (f *Face) metadata(in api.Instance) awsapi.Instance {
	n := f.opts.Network
	ip := internalIP(in)
	md := awsapi.Instance{ID: InstanceID(n.Cluster, in.Name), Type: in.Type, Zone: in.Zone, Region: n.Region,
		PrivateIP: ip, PrivateDNS: PrivateDNSName(ip, n.Region), MAC: MAC(ip), VPC: n.VPC(), Subnet: n.Subnet(in.Zone),
		Account: account, Image: "ami-" + hexID(n.Cluster, "ami", 17)}
	ips := internalIPs(in)
	for i := 1; i < len(ips); i++ {
		more := ips[i]
		md.More = append(md.More, awsapi.Interface{MAC: MAC(more), PrivateIP: more, PrivateDNS: PrivateDNSName(more, n.Region), Device: i})
	}
	return md
}
