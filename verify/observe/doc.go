// Package observe records a cluster while a procedure runs: lease holders,
// each manager's running controllers, calls to the simulated cloud, API and
// load-balancer probes, nodes, and the errors the managers log, all as
// events on one timeline.
package observe
