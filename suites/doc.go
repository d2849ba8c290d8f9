// Package suites holds the ginkgo suites that rehearse migrations on real
// kind clusters, by label:
//
//	smoke      one quick rehearsal (CI runs it on every change)
//	rehearsal  every procedure under moderate load with node churn
//	faults     the default procedure with each fault injected
//	negative   the task doc done wrong on purpose: the right check must fire
//	aws        AWS's own code on both sides (make aws; needs the v1.26.13 and
//	           v1.27.4 node images)
//	cleanup    a rehearsal killed (SIGKILL, or SIGTERM then SIGKILL after 10 s)
//	           mid-procedure leaves nothing behind once the next run pruned
//
// Run them with `make smoke`, `make suites` or
// `go tool ginkgo --label-filter=faults --junit-report=junit.xml --output-dir=reports ./suites`.
// Each spec writes its rehearsal (timeline, JUnit, Markdown, HTML report,
// and cluster logs when it failed) into _output/suites/<spec>/; clusters
// are deleted afterwards unless HANDOVER_KEEP=1.
package suites
