// Package load puts a cluster under the load a migration meets in real
// life while it runs: LoadBalancer Services created, updated and deleted,
// workers joining and instances being terminated, and API reads and writes
// at a set rate. Traffic through every load balancer is the observers'
// (verify/observe probes every LoadBalancer IP); the load gives them
// backends to reach.
package load
