// Package rancher derives a rehearsal from Rancher's own YAML: an RKE2 or
// K3s provisioning Cluster (provisioning.cattle.io/v1) or an RKE
// cluster.yml. Rancher's schemas are large and mostly beside the point, so
// only the fields a rehearsal depends on are read — the cloud provider,
// the Kubernetes version, the kube-controller-manager's flags, the
// cloud-controller-manager chart — and each value read is checked; the
// rest is left alone. What cannot be mapped onto a rehearsal is a Note
// naming its field, never a guess. Given the same cluster before and after
// an edit, the edit is placed in Rancher's runbook (which step it is).
package rancher
