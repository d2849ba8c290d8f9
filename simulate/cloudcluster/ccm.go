package cloudcluster

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
)

// Workloads the cloud-controller-manager can run as.
const (
	// DaemonSet on every control plane, as the RKE2 AWS chart runs it.
	DaemonSet = "daemonset"
	// Deployment with one replica per control plane, as the RKE2 Azure
	// chart runs it.
	Deployment = "deployment"
)

// CCMManifest runs the cloud-controller-manager on the control planes as a
// DaemonSet, or as a Deployment of replicas, with the RBAC upstream documents
// for it. extraArgs are added to its command line (e.g. leader migration
// flags).
func CCMManifest(workload string, replicas int, version, cluster, podSubnet string, extraArgs ...string) string {
	args := []string{
		"--cloud-provider=" + providerName,
		"--cloud-config=" + CloudConfigPath,
		"--cluster-name=" + cluster,
		"--leader-elect=true",
		"--use-service-account-credentials=false",
		"--allocate-node-cidrs=true",
		"--configure-cloud-routes=true",
		"--cluster-cidr=" + podSubnet,
		"--bind-address=127.0.0.1",
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
		"--v=2",
	}
	args = append(args, extraArgs...)
	var b strings.Builder
	for _, a := range args {
		b.WriteString("        - " + a + "\n")
	}
	m := strings.NewReplacer("IMAGE", nodeimage.CCMImage(version), "ARGS\n", b.String(),
		"CLOUD_CONFIG", CloudConfigPath).Replace(ccmManifest)
	if workload == Deployment {
		m = strings.Replace(m, "kind: DaemonSet\n", "kind: Deployment\n", 1)
		m = strings.Replace(m, "spec:\n  selector:\n    matchLabels:\n      component: cloud-controller-manager\n",
			fmt.Sprintf("spec:\n  replicas: %d\n  selector:\n    matchLabels:\n      component: cloud-controller-manager\n", replicas), 1)
		// One replica per control plane, never two on one node.
		m = strings.Replace(m, "      hostNetwork: true\n", "      hostNetwork: true\n"+antiAffinity, 1)
	}
	return m
}

const antiAffinity = `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                component: cloud-controller-manager
            topologyKey: kubernetes.io/hostname
`

const ccmManifest = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: cloud-controller-manager
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:cloud-controller-manager
rules:
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["*"]
- apiGroups: [""]
  resources: ["nodes/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["services/status"]
  verbs: ["list", "patch", "update", "watch"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["create", "get"]
- apiGroups: [""]
  resources: ["persistentvolumes"]
  verbs: ["get", "list", "update", "watch"]
- apiGroups: [""]
  resources: ["endpoints"]
  verbs: ["create", "get", "list", "watch", "update"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create", "get", "list", "watch", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:cloud-controller-manager
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:cloud-controller-manager
subjects:
- kind: ServiceAccount
  name: cloud-controller-manager
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:cloud-controller-manager:auth-delegator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:auth-delegator
subjects:
- kind: ServiceAccount
  name: cloud-controller-manager
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: cloud-controller-manager:apiserver-authentication-reader
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: extension-apiserver-authentication-reader
subjects:
- kind: ServiceAccount
  name: cloud-controller-manager
  namespace: kube-system
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cloud-controller-manager
  namespace: kube-system
  labels:
    component: cloud-controller-manager
spec:
  selector:
    matchLabels:
      component: cloud-controller-manager
  template:
    metadata:
      labels:
        component: cloud-controller-manager
    spec:
      hostNetwork: true
      serviceAccountName: cloud-controller-manager
      priorityClassName: system-node-critical
      nodeSelector:
        node-role.kubernetes.io/control-plane: ""
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        effect: NoSchedule
      - key: node.cloudprovider.kubernetes.io/uninitialized
        value: "true"
        effect: NoSchedule
      - key: node.kubernetes.io/not-ready
        effect: NoSchedule
      containers:
      - name: cloud-controller-manager
        image: IMAGE
        imagePullPolicy: IfNotPresent
        command:
        - /usr/local/bin/cloud-controller-manager
ARGS
        resources:
          requests:
            cpu: 50m
            memory: 50Mi
        volumeMounts:
        - name: cloud-config
          mountPath: CLOUD_CONFIG
          readOnly: true
      volumes:
      - name: cloud-config
        hostPath:
          path: CLOUD_CONFIG
          type: File
`
