// Package migrate runs the leader-migration procedures (the upstream task
// doc, Rancher's RKE2 and RKE runbooks, the default configuration, node
// IPAM) as ordered steps on a kind cluster of the simulated cloud. Each step
// names itself, checks whether it is already done, checks its precondition,
// acts, waits for its postcondition under a named timeout, and records
// start and end on the shared timeline. The same steps print as a plan.
//
// This package is the engine (spec, registry, runner, plans) and the step
// library; each procedure is a package under migrate/procedures that
// registers its row and composes its steps from the library.
package migrate
