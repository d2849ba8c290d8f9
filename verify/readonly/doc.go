// Package readonly opens a cluster handover did not create, from a
// kubeconfig, so that nothing can change it: every request is refused
// before it leaves the process unless it only reads. It also says what an
// observer must be allowed to read (Needs), checks those permissions
// before observing, and prints them as roles: a ClusterRole, and a Role in
// each namespace a need is limited to (the leases, in kube-system).
package readonly
