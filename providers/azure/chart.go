package azure

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// cloud-provider-azure's managers as its Helm chart deploys them
// (sigs.k8s.io/cloud-provider-azure helm/cloud-provider-azure at the
// release: templates/cloud-provider-azure.yaml's Linux objects with
// values.yaml's defaults): the manager's Deployment on the control planes
// and the node manager's DaemonSet on every node, with their
// ServiceAccounts, roles and bindings. Values set as a cluster needs them:
// infra.clusterName, cloudControllerManager.clusterCIDR and cloudConfig
// (the manager's own azure.json, naming its identity). TestChartHoldsInItsSource
// holds the objects to the chart.

// CCMName is the chart's manager Deployment; NodeManagerName its node
// manager's DaemonSet.
const (
	CCMName         = "cloud-controller-manager"
	NodeManagerName = "cloud-node-manager"
)

// CCMArgs are the chart's arguments with values.yaml's defaults (its
// --controllers=*,-cloud-node leaves nodes to the node manager) and what
// a cluster on the simulated cloud sets: its name, pod network and the
// manager's azure.json, and its health and metrics open to handover's
// observers on the port they read every cloud-controller-manager's on
// (securePort 10258, the manager's own default, where the chart's is
// 10268; its liveness probe follows the value).
func CCMArgs(cluster, podSubnet string) []string {
	return []string{
		"--allocate-node-cidrs=true",
		"--cloud-config=" + CCMCloudConfigPath,
		"--cloud-provider=" + Name,
		"--cluster-cidr=" + podSubnet,
		"--cluster-name=" + cluster,
		"--configure-cloud-routes=true",
		"--controllers=*,-cloud-node",
		"--leader-elect=true",
		"--route-reconciliation-period=10s",
		"--secure-port=" + securePort,
		"--v=2",
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
	}
}

// securePort is the chart's cloudControllerManager.securePort as a cluster
// on the simulated cloud sets it.
const securePort = "10258"

// chartInput is what the chart is rendered for.
type chartInput struct {
	form                        string // the manager's: Deployment (the chart's) or DaemonSet
	replicas                    int
	version, cluster, podSubnet string
	extraArgs                   []string
	noNodeManager               bool // cloudNodeManager.enabled=false
}

// chartManifest is the chart's objects for a Kubernetes version's
// cloud-provider-azure release and a cluster.
func chartManifest(in chartInput) (string, error) {
	c, err := releaseOf(in.version)
	if err != nil {
		return "", err
	}
	workload := deployment
	if in.form == cloudcluster.DaemonSet {
		workload = daemonSet
	}
	objects := strings.Replace(chartObjects, "WORKLOAD\n", workload, 1)
	if !in.noNodeManager {
		objects += "---\n" + nodeManagerObjects
	}
	return strings.NewReplacer("REPLICAS", strconv.Itoa(max(in.replicas, 1)), "CCM_IMAGE", c.Image,
		"CNM_IMAGE", c.NodeManager.Image, "ARGS\n", cloudcluster.ArgLines(cmdline.Merge(CCMArgs(in.cluster, in.podSubnet), in.extraArgs), 12)).Replace(objects), nil
}

// releaseOf is the cloud-provider-azure release handover builds for a
// Kubernetes version.
func releaseOf(version string) (nodeimage.ProviderCCM, error) {
	r, err := nodeimage.Lookup(version)
	if err != nil {
		return nodeimage.ProviderCCM{}, err
	}
	for _, c := range r.OnDemandCCMs {
		if c.Provider == Name {
			return c, nil
		}
	}
	return nodeimage.ProviderCCM{}, fmt.Errorf("handover builds no cloud-provider-azure for Kubernetes %s: it builds one for %s", version, strings.Join(nodeimage.OnDemandVersions(Name), ", "))
}

const deployment = `kind: Deployment
metadata:
  name: cloud-controller-manager
  namespace: kube-system
  labels:
    component: cloud-controller-manager
spec:
  selector:
    matchLabels:
      tier: control-plane
      component: cloud-controller-manager
  replicas: REPLICAS
`

// daemonSet is the manager as a DaemonSet, for a rehearsal that asks for
// that form: the Deployment's head without its replicas.
var daemonSet = strings.Replace(strings.Replace(deployment, "kind: Deployment\n", "kind: DaemonSet\n", 1), "  replicas: REPLICAS\n", "", 1)

const chartObjects = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: cloud-controller-manager
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:cloud-controller-manager
  annotations:
    rbac.authorization.kubernetes.io/autoupdate: "true"
  labels:
    k8s-app: cloud-controller-manager
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
    verbs: ["create", "get", "list", "watch", "update"]
  - apiGroups: [""]
    resources: ["persistentvolumes"]
    verbs: ["get", "list", "update", "watch"]
  - apiGroups: [""]
    resources: ["endpoints"]
    verbs: ["create", "get", "list", "watch", "update"]
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["get", "list", "watch"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "create", "update"]
  - apiGroups: ["discovery.k8s.io"]
    resources: ["endpointslices"]
    verbs: ["get", "list", "watch"]
---
kind: ClusterRoleBinding
apiVersion: rbac.authorization.k8s.io/v1
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
  - kind: User
    name: cloud-controller-manager
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: system:cloud-controller-manager:extension-apiserver-authentication-reader
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: extension-apiserver-authentication-reader
subjects:
  - kind: ServiceAccount
    name: cloud-controller-manager
    namespace: kube-system
  - apiGroup: ""
    kind: User
    name: cloud-controller-manager
---
apiVersion: apps/v1
WORKLOAD
  template:
    metadata:
      labels:
        component: cloud-controller-manager
        tier: control-plane
    spec:
      priorityClassName: system-node-critical
      hostNetwork: true
      nodeSelector:
        node-role.kubernetes.io/control-plane: ""
      serviceAccountName: cloud-controller-manager
      tolerations:
        - key: node-role.kubernetes.io/master
          effect: NoSchedule
        - key: node-role.kubernetes.io/control-plane
          effect: NoSchedule
        - key: node-role.kubernetes.io/etcd
          effect: NoExecute
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: kubernetes.io/hostname
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabels:
            tier: control-plane
            component: cloud-controller-manager
      containers:
        - name: cloud-controller-manager
          image: CCM_IMAGE
          imagePullPolicy: IfNotPresent
          command: ["cloud-controller-manager"]
          args:
ARGS
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              cpu: "4"
              memory: 2Gi
          livenessProbe:
            httpGet:
              path: /healthz
              port: 10258
              scheme: HTTPS
            initialDelaySeconds: 20
            periodSeconds: 10
            timeoutSeconds: 5
          volumeMounts:
          - name: etc-kubernetes
            mountPath: /etc/kubernetes
          - name: ssl-mount
            mountPath: /etc/ssl
            readOnly: true
          - name: msi
            mountPath: /var/lib/waagent/ManagedIdentity-Settings
            readOnly: true
          - name: azure-identity-token
            mountPath: /var/run/secrets/azure/tokens
            readOnly: true
      volumes:
      - name: etc-kubernetes
        hostPath:
          path: /etc/kubernetes
      - name: ssl-mount
        hostPath:
          path: /etc/ssl
      - name: msi
        hostPath:
          path: /var/lib/waagent/ManagedIdentity-Settings
      - name: azure-identity-token
        projected:
          defaultMode: 420
          sources:
            - serviceAccountToken:
                audience: api://AzureADTokenExchange
                expirationSeconds: 3600
                path: azure-identity-token
`

// nodeManagerObjects are the chart's cloud-node-manager objects.
const nodeManagerObjects = `apiVersion: v1
kind: ServiceAccount
metadata:
  labels:
    k8s-app: cloud-node-manager
    kubernetes.io/cluster-service: "true"
  name: cloud-node-manager
  namespace: kube-system
---
kind: ClusterRole
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: cloud-node-manager
  labels:
    k8s-app: cloud-node-manager
    kubernetes.io/cluster-service: "true"
rules:
  - apiGroups: [""]
    resources: ["nodes"]
    verbs: ["watch", "list", "get", "update", "patch"]
  - apiGroups: [""]
    resources: ["nodes/status"]
    verbs: ["patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cloud-node-manager
  labels:
    k8s-app: cloud-node-manager
    kubernetes.io/cluster-service: "true"
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cloud-node-manager
subjects:
  - kind: ServiceAccount
    name: cloud-node-manager
    namespace: kube-system
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cloud-node-manager
  namespace: kube-system
  labels:
    component: cloud-node-manager
    kubernetes.io/cluster-service: "true"
spec:
  selector:
    matchLabels:
      k8s-app: cloud-node-manager
  template:
    metadata:
      labels:
        k8s-app: cloud-node-manager
      annotations:
        cluster-autoscaler.kubernetes.io/daemonset-pod: "true"
    spec:
      priorityClassName: system-node-critical
      serviceAccountName: cloud-node-manager
      hostNetwork: true
      nodeSelector:
        kubernetes.io/os: linux
      tolerations:
        - key: CriticalAddonsOnly
          operator: Exists
        - key: node-role.kubernetes.io/master
          effect: NoSchedule
        - key: node-role.kubernetes.io/control-plane
          effect: NoSchedule
        - operator: "Exists"
          effect: NoExecute
        - operator: "Exists"
          effect: NoSchedule
      containers:
        - name: cloud-node-manager
          image: CNM_IMAGE
          imagePullPolicy: IfNotPresent
          command: ["cloud-node-manager"]
          args:
            - --node-name=$(NODE_NAME)
            - "--v=2"
          env:
            - name: NODE_NAME
              valueFrom:
                fieldRef:
                  fieldPath: spec.nodeName
          resources:
            requests:
              cpu: 50m
              memory: 50Mi
            limits:
              cpu: "2"
              memory: 512Mi
`
