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
// security groups. Those three carry no traffic yet: a load balancer's
// frontend is not the cloud's load balancer, and a public address is not
// routed anywhere (the cloud gives a load balancer its address when it
// makes it, after ARM has handed the address out). Their calls still pass
// the cloud's knobs, through a listing of the cloud's load balancers made
// as the caller.
//
// Bearer tokens come from the metadata service's managed-identity
// endpoint, one identity a node (or a user-assigned identity named by
// client_id), told apart by the caller's address as the link-local
// service does.
package azure
