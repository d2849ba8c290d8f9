package amazon

import (
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
	"github.com/handover-sh/handover/simulate/cloudserver/byaddress"
)

// IMDSComponent is the caller the metadata service lists instances as:
// handover's own, so the cloud's throttle never holds it (a real metadata
// service is not the account's API).
const IMDSComponent = "handover-imds"

// IMDS is the instance metadata service over the cloud's instances.
func (f *Face) IMDS(requireToken bool) *awsapi.IMDS {
	l := instanceLookup{face: f, Instances: &byaddress.Instances{Cloud: f.opts.Cloud, Component: IMDSComponent, TTL: time.Second,
		Addresses: func(in api.Instance) []string { return []string{internalIP(in)} }}}
	return &awsapi.IMDS{Lookup: l.lookup, RequireToken: requireToken, Now: f.opts.Now}
}

// instanceLookup answers the metadata service for the instance at ip.
type instanceLookup struct {
	face *Face
	*byaddress.Instances
}

func (l instanceLookup) lookup(ip string) (awsapi.Instance, bool, error) {
	in, ok, err := l.Find(ip)
	if err != nil || !ok {
		return awsapi.Instance{}, false, err
	}
	return l.face.metadata(in), true, nil
}

// metadata is what the service tells an instance of itself: its
// hostnames as the VPC's DHCP options give them (Network.Hostname).
func (f *Face) metadata(in api.Instance) awsapi.Instance {
	n := f.opts.Network
	ip := internalIP(in)
	md := awsapi.Instance{ID: InstanceID(n.Cluster, in.Name), Type: in.Type, Zone: in.Zone, Region: n.Region,
		PrivateIP: ip, PrivateDNS: n.Hostname(ip), MAC: MAC(ip), VPC: n.VPC(), Subnet: n.Subnet(in.Zone),
		Account: account, Image: "ami-" + hexID(n.Cluster, "ami", 17)}
	ips := internalIPs(in)
	for i := 1; i < len(ips); i++ {
		more := ips[i]
		md.More = append(md.More, awsapi.Interface{MAC: MAC(more), PrivateIP: more, PrivateDNS: n.Hostname(more), Device: i})
	}
	return md
}
