// Package azure is the simulated cloud as Azure Resource Manager (ARM) and
// the Azure instance metadata service (IMDS) show it, answering the azure
// providers' real code (the in-tree provider of
// k8s.io/legacy-cloud-providers and sigs.k8s.io/cloud-provider-azure's
// cloud-controller-manager and cloud-node-manager) over the same
// instances and routes handover's own provider sees.
//
// Virtual machines and their network interfaces are the cloud's
// instances; the route table is the cloud's routes. Every ARM call is
// made of calls of the simulated cloud's own API as the component its
// bearer token was issued to, so the cloud's audit, fault knobs and
// credential scopes hold Azure callers as they hold every other. What only
// Azure has is kept here (state.go): the interfaces' backend-pool
// memberships, and the load balancers, public IP addresses and network
// security groups as ARM stores them.
//
// Public IP addresses carry traffic: each is one of the cloud's load
// balancers (carriers.go), made by the address's PUT, whose address is the
// public IP's ipAddress (and the metadata service's frontendIpAddress).
// The rules of the load balancer frontend on it give it its ports, and
// the interfaces in their backend pools its nodes (carriage.go): every
// write that changes what one carries — a load balancer's PUT or DELETE,
// a public IP's, an interface's PUT — changes the cloud's load balancers
// as the caller, and a refusal of the cloud is the write's ARM error,
// leaving ARM's resources as they were. What is approximated: a rule's
// floating IP (the relay connects to the node port the rule's probe tests,
// not to the frontend's address on the node), one set of nodes for every
// rule of a frontend, and health probes (the cloud's relay checks each
// node itself, by TCP, every second: not at the probe's interval,
// threshold, protocol or port). Internal frontends (a subnet, no public
// IP), outbound and inbound NAT rules carry nothing, and security groups
// filter nothing.
//
// Bearer tokens come from the metadata service's managed-identity
// endpoint, one identity a node (or a user-assigned identity named by
// client_id), told apart by the caller's address as the link-local
// service does.
package azure
