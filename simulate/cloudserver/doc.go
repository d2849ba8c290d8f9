// Package cloudserver is the server of handover's simulated cloud (the
// process the CLI runs as `handover simcloud serve`): one region, a few
// zones, instances that are the cluster's node containers, load balancers, a
// route table, an append-only audit of every call with its caller, fault
// knobs that change at run time, and state that survives a restart. The
// Kubernetes side talks to it through simulate/cloudprovider/provider.
//
// A load balancer is an address and, per port, a TCP relay to that node
// port on each backend node. One with no ports is a reserved address:
// made, addressed and audited like any other, forwarding nothing until an
// update gives it ports (the Azure face's public IPs are such until a
// frontend's rules use them). The simulated provider never makes one: a
// Service always has a port.
//
// What backs instances, load balancers and routes is pluggable (Backends), so
// the API, audit, faults and persistence are tested in-process and the
// Docker-backed implementation is exercised on real clusters.
package cloudserver
