package cloudcluster

import (
	"path/filepath"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/internal/privatefs"
)

// The API servers of a cloud cluster keep an audit log of the writes the
// managers' cloud controllers make, so the observers can tell which manager
// acted. The log stays inside each node (its /var is a volume, so a node
// restart keeps it); observers read it through the node's root filesystem.
const (
	// AuditLogPath is the audit log in every control plane.
	AuditLogPath  = "/var/log/kubernetes/audit/audit.log"
	auditDir      = "/var/log/kubernetes/audit"
	auditPolicy   = "/etc/kubernetes/audit-policy.yaml"
	auditPolicyFn = "audit-policy.yaml"
)

// auditedUsers are the identities the cloud controllers write as: both
// managers' own users (a manager without per-controller credentials) and
// the per-controller service accounts kube-controller-manager uses.
var auditedUsers = []string{
	"system:kube-controller-manager",
	"system:cloud-controller-manager",
	"system:serviceaccount:kube-system:cloud-controller-manager",
	"system:serviceaccount:kube-system:service-controller",
	"system:serviceaccount:kube-system:route-controller",
	"system:serviceaccount:kube-system:node-controller",
}

// AuditPolicy logs, at Metadata level, the writes of the audited users
// except their leader-election lease renewals (a write every 2 s per
// manager that says nothing about the controllers).
func AuditPolicy() string {
	return `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
  users: ["` + strings.Join(auditedUsers, `", "`) + `"]
- level: None
`
}

func writeAuditPolicy(cluster string) error {
	return privatefs.WriteFileMode(filepath.Join(StateDir(cluster), auditPolicyFn), []byte(AuditPolicy()), 0o644)
}

// auditMount is the audit policy's mount, on every node.
func auditMount(cluster string) v1alpha4.Mount {
	return v1alpha4.Mount{HostPath: filepath.Join(StateDir(cluster), auditPolicyFn), ContainerPath: auditPolicy, Readonly: true}
}

// auditPatch turns the API servers' audit log on, by the policy every
// node mounts (auditMount, among cloudNodeMounts).
const auditPatch = `kind: ClusterConfiguration
apiServer:
  extraArgs:
    audit-policy-file: ` + auditPolicy + `
    audit-log-path: ` + AuditLogPath + `
    audit-log-maxsize: "100"
    audit-log-maxbackup: "1"
  extraVolumes:
  - name: audit-policy
    hostPath: ` + auditPolicy + `
    mountPath: ` + auditPolicy + `
    readOnly: true
    pathType: File
  - name: audit-log
    hostPath: ` + auditDir + `
    mountPath: ` + auditDir + `
    pathType: DirectoryOrCreate`
