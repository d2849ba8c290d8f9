// Package api is the wire format of simcloud, handover's simulated cloud, and
// a client for it. Every request names its caller in headers so the cloud's
// audit log can attribute it.
package api

import "time"

// Headers a caller sets on every request.
const (
	HeaderComponent  = "X-Simcloud-Component"  // kube-controller-manager, cloud-controller-manager, kubelet, handover
	HeaderController = "X-Simcloud-Controller" // service-lb-controller, node-route-controller, cloud-node-controller, ...
	HeaderNode       = "X-Simcloud-Node"       // the node a kubelet runs on
)

// Instance states.
const (
	StateRunning    = "running"
	StateStopped    = "stopped"
	StateTerminated = "terminated"
)

// Address is one address of an instance, typed like a Kubernetes NodeAddress.
type Address struct {
	Type    string `json:"type"` // InternalIP, ExternalIP, Hostname
	Address string `json:"address"`
}

// Instance is a machine of the simulated cloud: a kind node container.
type Instance struct {
	Name       string    `json:"name"`
	ProviderID string    `json:"providerID"`
	Type       string    `json:"type"`
	Region     string    `json:"region"`
	Zone       string    `json:"zone"`
	State      string    `json:"state"`
	Addresses  []Address `json:"addresses"`
}

// Port is one port of a load balancer.
type Port struct {
	Name     string `json:"name,omitempty"`
	Protocol string `json:"protocol"`
	Port     int32  `json:"port"`
	NodePort int32  `json:"nodePort"`
}

// LoadBalancerSpec is what a caller asks a load balancer to be.
type LoadBalancerSpec struct {
	Service string `json:"service"` // namespace/name, for people reading the state
	// Group is the load balancer this one is a frontend of, for a
	// provider with one per cluster (Azure's, named by the cluster).
	Group string   `json:"group,omitempty"`
	Ports []Port   `json:"ports"`
	Nodes []string `json:"nodes"` // backend node addresses
	// HealthCheck, when set, is how the load balancer judges its nodes,
	// as a cloud's load balancer does (a classic ELB's): only nodes that
	// pass it get traffic, and none is tried in another's place. Unset,
	// the simulated provider's own: a quick TCP check of each backend.
	HealthCheck *HealthCheck `json:"healthCheck,omitempty"`
	// Dropped are the node address:port pairs (of Nodes, at a node port
	// or the health check's) the cloud's network drops this load
	// balancer's traffic to, as a security group with no rule letting it
	// in does: a check there fails by its timeout, a connection there is
	// lost. The cloud's own face of a provider sets it; none by default.
	Dropped []string `json:"dropped,omitempty"`
	// Draining, when set, is what the load balancer does with a node's
	// open connections when the node is taken out of it or fails its
	// check, as a classic ELB's connection draining: off, they are closed
	// at once; on, a removed node's may finish within Timeout seconds and
	// an unhealthy node's finish. Unset, they run on until their ends
	// close them (the simulated provider's own). The cloud's own face of a
	// provider sets it.
	Draining *Draining `json:"draining,omitempty"`
}

// Draining is a load balancer's connection draining.
type Draining struct {
	Enabled bool  `json:"enabled"`
	Timeout int32 `json:"timeoutSeconds,omitempty"`
}

// HealthCheck is a load balancer's check of its nodes: a TCP connect to
// Port, or an HTTP GET of Path there wanting a 200; each check given
// Timeout, one every Interval; a node takes traffic after Healthy passes
// in a row and stops after Unhealthy failures in a row.
type HealthCheck struct {
	Protocol  string `json:"protocol"` // TCP or HTTP
	Port      int32  `json:"port"`
	Path      string `json:"path,omitempty"`
	Interval  int32  `json:"intervalSeconds"`
	Timeout   int32  `json:"timeoutSeconds"`
	Healthy   int32  `json:"healthyThreshold"`
	Unhealthy int32  `json:"unhealthyThreshold"`
}

// LoadBalancer is a load balancer as the cloud keeps it.
type LoadBalancer struct {
	Name    string           `json:"name"`
	Spec    LoadBalancerSpec `json:"spec"`
	IP      string           `json:"ip"`
	Created time.Time        `json:"created"`
	Updated time.Time        `json:"updated"`
}

// Route sends a pod CIDR to an instance.
type Route struct {
	Name            string `json:"name"`
	DestinationCIDR string `json:"destinationCIDR"`
	TargetInstance  string `json:"targetInstance"`
	Blackhole       bool   `json:"blackhole,omitempty"`
}

// Faults are knobs that make the cloud misbehave, changeable at run time.
type Faults struct {
	// ErrorRate per operation (e.g. "EnsureLoadBalancer"; "*" = all), 0..1.
	ErrorRate map[string]float64 `json:"errorRate,omitempty"`
	// Latency added to every call.
	Latency Duration `json:"latency,omitempty"`
	// Throttle limits each caller component to QPS requests per second;
	// callers over it get 429.
	ThrottleQPS float64 `json:"throttleQPS,omitempty"`
	// Outages are windows during which every call fails with 503.
	Outages []Window `json:"outages,omitempty"`
	// Deny lists, by caller component, the operations its credentials
	// lack: each is refused with 403, as a cloud refuses an unauthorised
	// action ("*" for every one).
	Deny map[string][]string `json:"deny,omitempty"`
	// Scope limits, by caller component, the instances its credentials
	// see to one region or zone: an instance elsewhere is not found (404)
	// and not listed, as a cloud answers credentials or a configuration
	// scoped to another region.
	Scope map[string]string `json:"scope,omitempty"`
	// Lag is how far the callers' view of instances trails the cloud's:
	// an instance launched less than Lag ago is not listed or found
	// (404), and one terminated less than Lag ago is still answered as it
	// was, as EC2's API is eventually consistent ("Eventual consistency
	// in the Amazon EC2 API", EC2 developer guide). The cloud's own
	// callers (handover's) see the instances as they are.
	Lag Duration `json:"lag,omitempty"`
}

// Window is a time interval.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// AuditEntry records one call.
type AuditEntry struct {
	Time       time.Time `json:"time"`
	Component  string    `json:"component"`
	Controller string    `json:"controller,omitempty"`
	Node       string    `json:"node,omitempty"`
	UserAgent  string    `json:"userAgent,omitempty"`
	Operation  string    `json:"operation"`
	Resource   string    `json:"resource"`
	Status     int       `json:"status"`
	Error      string    `json:"error,omitempty"`
	Fault      string    `json:"fault,omitempty"` // which knob caused a failure
}

// Error is the body of every failed call.
type Error struct {
	Message string `json:"message"`
}

// PodCIDRRequest asks the cloud for an instance's pod range: the one it
// holds, Adopt (a range allocated before the cloud did IPAM, kept if free),
// or the next free range of MaskSize in ClusterCIDR.
type PodCIDRRequest struct {
	ClusterCIDR string `json:"clusterCIDR"`
	MaskSize    int    `json:"maskSize"`
	Adopt       string `json:"adopt,omitempty"`
}

// PodCIDR is an instance's pod range.
type PodCIDR struct {
	Instance string `json:"instance"`
	CIDR     string `json:"cidr"`
}

// RegistryToken is a credential for the cloud's container registry, as
// the cloud issues it to a caller: the registry takes Username and
// Password (basic authentication) until ExpiresAt.
type RegistryToken struct {
	Registry  string    `json:"registry"`
	Username  string    `json:"username"`
	Password  string    `json:"password"`
	ExpiresAt time.Time `json:"expiresAt"`
}
