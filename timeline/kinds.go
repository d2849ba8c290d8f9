package timeline

// Kinds of event the observers write. Attribute keys are listed with each.
const (
	// Health is one poll of a manager's /healthz?verbose: Manager,
	// Instance (node), Attrs "controllers" (comma-separated, started
	// controllers) and "up" ("false" when the manager did not answer, with
	// "error", and "down" "true" when the error is how a manager that does
	// not run answers: a refused or at once closed connection).
	Health = "health"
	// Metrics is one scrape of a manager's /metrics: Manager, Instance,
	// Attrs "controllers" (running_managed_controllers, as controller
	// names), "leases" (leader_election_master_status) and "up".
	Metrics = "metrics"
	// Lease is a holder change: Attrs "lease", "holder" ("" when free).
	Lease = "lease"
	// APIWrite is a write in the API server's audit log by a manager's
	// controller: Manager, Controller, Attrs "verb", "resource", "name",
	// "user", "userAgent".
	APIWrite = "api.write"
	// ManagedWrite is a write by a manager's controller read off the
	// object's managedFields (the manager's entry moved as the field the
	// controller owns changed), or an Event a manager's controller
	// reported: Manager, Controller, Attrs "resource", "name",
	// "operation" (and for an Event "reason" and "message", at most 600
	// characters, cut with an ellipsis).
	ManagedWrite = "api.managed"
	// CloudCall is a call to the simulated cloud: Manager, Controller,
	// Attrs "operation", "resource", "status".
	CloudCall = "cloud.call"
	// Probe is one request: Attrs "kind" (api or lb), "target", "node"
	// (an API server's node; "" for the endpoint and load balancers), "ok"
	// ("true"/"false"), "ms", and "error".
	Probe = "probe"
	// Node events: Node, Attrs "providerID", "taints", "podCIDRs"
	// (comma-separated, "" before node IPAM gave one), "addresses"
	// (TYPE=ADDRESS, comma-separated, by type and in the Node's order
	// within a type: the first InternalIP is the node's IP), "zone", "region" and "instanceType"
	// (the well-known labels, "" where unset), and for NodeDeleted
	// "instance" ("exists" or "gone" at that moment).
	NodeAdded   = "node.added"
	NodeChanged = "node.changed"
	NodeDeleted = "node.deleted"
	// LoadBalancer events from the cloud: Attrs "name", "service", "ip",
	// and but for LBDeleted "backends" (node addresses, the first 16 and the count
	// beyond that); LBChanged is a
	// change of backends.
	LBCreated = "lb.created"
	LBChanged = "lb.changed"
	LBDeleted = "lb.deleted"
	// Snapshot at the end: Attrs "services" (LoadBalancer Services as
	// namespace/name, comma-separated), "loadBalancers" (cloud LB names).
	Snapshot = "snapshot"
	// ObserverStart and ObserverStop bracket the observation.
	ObserverStart = "observer.start"
	ObserverStop  = "observer.stop"
	// ManagersFound: observers that find the managers themselves found more
	// while observing (a cloud-controller-manager deployed by the
	// procedure), sampled from then on: Attrs FixedManagers lists them.
	ManagersFound = "observer.managers"
)

// NodeRemove is the runner announcing that it takes a node away (Node):
// probes of that node stop counting, and its Node's deletion is expected.
// Attrs "instance" "terminated": its instance was terminated in the cloud
// and the cluster's controllers, not the runner, are to delete the Node.
const NodeRemove = "node.remove"

// ManagerPods is the set of one manager's pods in kube-system (Manager;
// Attrs "pods": node/pod, comma-separated, "" for none), as the observers'
// first list found it and whenever it changed: where none exists, that
// manager cannot run a controller.
const ManagerPods = "manager.pods"

// ManagerError is an error a manager logged (a klog E line in its pod's
// log, read through the API): Manager, Instance (the pod's node), Attrs
// "source" (klog's file:line, e.g. "route_controller.go:119"), "message"
// (at most 600 characters, cut with an ellipsis) and "repeats" (the same
// lines folded into it since the last one written, when any). Time is the
// line's klog time. A controller that fails without posting an Event (the
// route controller's "Couldn't reconcile node routes") says why only here.
const ManagerError = "manager.error"

// ServiceDeleted is a LoadBalancer Service's deletion: Attrs "service".
const ServiceDeleted = "service.deleted"

// ServiceIngress is a LoadBalancer Service's status addresses as first
// seen and at each change: Attrs "service", "ingress" (IPs or hostnames,
// comma-separated; "" when it has none).
const ServiceIngress = "service.ingress"

// NodeDisruptStart and NodeDisruptEnd bracket the runner restarting a
// node's control-plane components (an in-place upgrade): probes of that
// node do not count in between.
const (
	NodeDisruptStart = "node.disrupt.start"
	NodeDisruptEnd   = "node.disrupt.end"
)

// LoadStart and LoadStop bracket the load generators (simulate/load):
// Attrs "profile", on LoadStart PullImage when the nodes pull from the
// cloud's registry, and, on LoadStop, what the load did.
const (
	LoadStart = "load.start"
	LoadStop  = "load.stop"
	PullImage = "pullImage"
	// PullEvery and PullLimit (Go durations) come with PullImage: how
	// often each Ready node starts a pull, and how long one may take.
	PullEvery = "pullEvery"
	PullLimit = "pullLimit"
)

// ImagePull is one pod start on a node (Node) whose image only the
// cloud's credentials pull: Attrs "image", "ok" ("true" once the container
// ran, "false" once the kubelet gave up), "error" (the kubelet's reason
// and message) and "ms" (from the pod's creation to the outcome, when
// the event is written).
const ImagePull = "image.pull"

// FaultStart and FaultEnd bracket an injected fault (simulate/faults):
// Attrs "fault", "target" and, on FaultEnd, "error" when it failed.
const (
	FaultStart = "fault.start"
	FaultEnd   = "fault.end"
	// FaultTargetCloud, as a fault's target, is the cloud's API itself:
	// every caller's calls throttled, failing or refused until FaultEnd.
	FaultTargetCloud = "cloud"
)

// SelfUsage samples what handover itself costs the machine it measures on
// (selfusage): Attrs "cpu_s" (CPU seconds its processes used since
// they started, reaped children included), "wall_s" (seconds since the
// rehearsal's process started), "pressure_us" (the host's cumulative
// CPU pressure stall, /proc/pressure/cpu "some" total, in µs) and
// "rss_bytes" (its processes' resident memory then).
const SelfUsage = "self.usage"

// The periods an observer.start declares (Attrs, Go durations): how often
// the health, metrics and API-probe pollers sample. The evidence checks
// judge silences against them.
const (
	HealthEvery  = "healthEvery"
	MetricsEvery = "metricsEvery"
	ProbeEvery   = "probeEvery"
)

// FixedManagers is an attribute of observer.start when the observers were
// given what to sample rather than finding it on the cluster's nodes (a
// cluster observed from its kubeconfig): the managers as manager@instance,
// comma-separated ("" when none could be reached). The API is then probed
// at the kubeconfig's server alone.
const FixedManagers = "fixedManagers"

// CloudOutOfReach is an attribute of observer.start, "true" when the
// observers cannot see the cloud by design (a cluster observed from its
// kubeconfig): the checks that only the cloud can answer are skipped, not
// failed for want of evidence.
const CloudOutOfReach = "cloudOutOfReach"

// MetricsOutOfReach is an attribute of observer.start when the observers
// cannot read the managers' /metrics by design (managers given without
// --manager-ca, verify/observe/managerauth.go): why, in words, e.g. "not
// available without --manager-ca: ...". The checks that read the metrics
// then say they were not judged, as those only the cloud can answer are
// where CloudOutOfReach is declared; the health samples are still owed.
const MetricsOutOfReach = "metricsOutOfReach"

// ScaleStart and ScaleStop bracket a simulated fleet (simulate/scale):
// Attrs "nodes", "services", "joinEvery", "throttleQPS" and, on ScaleStop,
// "registered", "joined" and "failed". ScaleJoin is a simulated node's
// machine coming up, before its kubelet registers it: Node, Attrs "mode"
// (in-tree or external: how its kubelet registers) and "phase" (prepare,
// or procedure for the nodes joining while it runs).
const (
	ScaleStart = "scale.start"
	ScaleJoin  = "scale.join"
	ScaleStop  = "scale.stop"
)

// ProviderCode names the provider code one side of the procedure runs
// (Source "rehearsal", at the start): Attrs "side" (in-tree or external),
// "runs" (the managers that run it, with their versions), "code"
// (module@version, or the simulated provider's package) and "api" (the
// cloud API the code speaks, e.g. "aws"; "" for the simulated cloud's own).
const ProviderCode = "provider.code"

// CloudAPIAction is what the cloud's face of a provider's API answered
// for one action over the rehearsal (at the end): Attrs "api", "service",
// "action", "calls", "refused" (answered with an error) and
// "unimplemented" ("true" for an action the face does not serve).
const CloudAPIAction = "cloud.api.action"

// A load balancer's health check, as lb.created and lb.changed carry it
// when the cloud's load balancer checks its backends as a cloud's does (a
// classic ELB's): the target (PROTOCOL:PORT[/PATH]), the interval and
// timeout (Go durations), and the thresholds in and out of service (whole
// numbers). checks/availability.go judges its probes by them.
const (
	HealthCheck        = "healthCheck"
	HealthInterval     = "healthInterval"
	HealthTimeout      = "healthTimeout"
	HealthyThreshold   = "healthyThreshold"
	UnhealthyThreshold = "unhealthyThreshold"
)

// LBDropped, on lb.created and lb.changed, lists the backends'
// address:port pairs the cloud's network drops the load balancer's
// traffic to (a security group with no rule letting it in), comma-
// separated and cut short as "backends" is; absent when none.
const LBDropped = "dropped"

// LBDraining, on lb.created and lb.changed, is what the load balancer does
// with a backend's open connections when the backend leaves it or fails
// its check (a classic ELB's connection draining): "off" (closed at once)
// or the timeout a removed backend's may finish within (a Go duration);
// absent when the cloud's load balancer leaves them to run on.
const LBDraining = "draining"
