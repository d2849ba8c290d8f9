// Package rehearsal runs one rehearsal end to end: node images, a kind
// cluster on the simulated cloud, load, observers, the procedure, faults,
// checks and reports. `handover rehearse` and the ginkgo suites both use it.
package rehearsal
