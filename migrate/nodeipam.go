package migrate

import "fmt"

// nodeIPAM is the task doc with node IPAM moved too: node-ipam-controller
// is listed in both configurations, and the N+1 cloud-controller-manager's
// node-ipam-controller takes pod CIDRs from the simulated cloud.
func nodeIPAM(s Spec) *Procedure {
	p := taskDoc(s)
	p.Title = fmt.Sprintf("Migrate the cloud controllers and node IPAM from kube-controller-manager %s to cloud-controller-manager %s", s.From, s.To)
	return p
}
