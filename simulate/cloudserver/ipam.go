package cloudserver

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/http"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// allocatePodCIDR gives an instance its pod range, as a cloud that does
// IPAM (alias ranges) does: the range it holds, the one it asks to adopt if
// no other instance holds it, or the lowest free one.
func (s *Server) allocatePodCIDR(r *http.Request) (any, error) {
	name := r.PathValue("name")
	var req api.PodCIDRRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if _, err := s.getInstance(r); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if held, ok := s.state.PodCIDRs[name]; ok {
		return api.PodCIDR{Instance: name, CIDR: held}, nil
	}
	cidr := req.Adopt
	if cidr != "" {
		if owner := s.cidrOwner(cidr); owner != "" {
			return nil, &httpError{code: http.StatusConflict, msg: fmt.Sprintf("pod range %s is held by instance %s", cidr, owner)}
		}
	} else {
		var err error
		if cidr, err = s.nextFreeCIDR(req.ClusterCIDR, req.MaskSize); err != nil {
			return nil, err
		}
	}
	s.state.PodCIDRs[name] = cidr
	if err := s.persist(); err != nil {
		return nil, err
	}
	return api.PodCIDR{Instance: name, CIDR: cidr}, nil
}

func (s *Server) cidrOwner(cidr string) string {
	for in, c := range s.state.PodCIDRs {
		if c == cidr {
			return in
		}
	}
	return ""
}

// nextFreeCIDR walks the cluster range in steps of the mask size.
func (s *Server) nextFreeCIDR(cluster string, mask int) (string, error) {
	_, ipnet, err := net.ParseCIDR(cluster)
	if err != nil || ipnet.IP.To4() == nil {
		return "", badRequest("clusterCIDR %q: want an IPv4 CIDR", cluster)
	}
	ones, _ := ipnet.Mask.Size()
	if mask < ones || mask > 30 {
		return "", badRequest("maskSize %d: want between %d and 30", mask, ones)
	}
	held := make(map[string]bool, len(s.state.PodCIDRs))
	for _, c := range s.state.PodCIDRs {
		held[c] = true
	}
	base := binary.BigEndian.Uint32(ipnet.IP.To4())
	step := uint32(1) << (32 - mask)
	for i := uint32(0); i < uint32(1)<<(mask-ones); i++ {
		ip := make(net.IP, 4)
		binary.BigEndian.PutUint32(ip, base+i*step)
		c := fmt.Sprintf("%s/%d", ip, mask)
		if !held[c] {
			return c, nil
		}
	}
	return "", &httpError{code: http.StatusConflict, msg: "cluster range " + cluster + " is exhausted"}
}
