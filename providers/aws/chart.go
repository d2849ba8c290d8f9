package aws

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// cloud-provider-aws's manager as its Helm chart deploys it
// (k8s.io/cloud-provider-aws charts/aws-cloud-controller-manager: the
// DaemonSet, ServiceAccount, ClusterRole and bindings of templates/, the
// values of values.yaml), with the chart's hostNetworking value on, as on
// a control plane whose pods must not wait for a pod network the manager
// initialises. Beside the chart: the cloud-config and the manager's key,
// which a real cluster's instance role would give it. TestAWSChartHoldsInItsSource
// holds the objects to the chart of every release a node image carries.

// CCMName is the chart's DaemonSet (its nameOverride).
const CCMName = "aws-cloud-controller-manager"

// ccmCredentials is the Secret holding the manager's key.
const ccmCredentials = "aws-cloud-controller-manager-credentials"

// CCMArgs are the chart's arguments (--v=2, --cloud-provider=aws) and
// what a cluster on the simulated cloud adds: its cloud-config, its name
// (the cluster tag), the route controller the pod network follows, and
// the secure port on loopback alone (the manager runs on the host's
// network), its health and metrics open to handover's observers there.
func CCMArgs(cluster, podSubnet string) []string {
	return []string{
		"--bind-address=127.0.0.1",
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
		"--v=2",
		"--cloud-provider=" + Name,
		"--cloud-config=" + CCMCloudConfigPath,
		"--cluster-name=" + cluster,
		"--allocate-node-cidrs=true",
		"--configure-cloud-routes=true",
		"--cluster-cidr=" + podSubnet,
	}
}

// chartManifest is the chart's objects for a Kubernetes version's node
// image and a cluster, with extraArgs merged into the chart's. The manager's
// key is the cluster's Secret (credentialsSecret).
func chartManifest(version, cluster, podSubnet string, extraArgs ...string) string {
	image, _ := ccmImage(version)
	return strings.NewReplacer("IMAGE", image, "ARGS\n", cloudcluster.ArgLines(cmdline.Merge(CCMArgs(cluster, podSubnet), extraArgs), 12),
		"CLOUD_CONFIG", CCMCloudConfigPath, "NAME", CCMName, "CREDENTIALS", ccmCredentials).Replace(chartObjects)
}

// credentialsSecret is the Secret of the manager's key, from the keys
// the cluster's cloud issued.
func credentialsSecret(cluster string) (string, error) {
	k, err := keyOf(cluster, "cloud-controller-manager")
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString
	return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + ccmCredentials + "\n  namespace: kube-system\ntype: Opaque\ndata:\n" +
		"  AWS_ACCESS_KEY_ID: " + b64([]byte(k.ID)) + "\n  AWS_SECRET_ACCESS_KEY: " + b64([]byte(k.Secret)) + "\n", nil
}

// keyOf is the key the cluster's cloud issued a component.
func keyOf(cluster, principal string) (awsapi.Key, error) {
	keys, err := amazon.ReadKeys(keysFile(cluster))
	if err != nil {
		return awsapi.Key{}, err
	}
	for _, k := range keys {
		if k.Principal == principal {
			return k, nil
		}
	}
	return awsapi.Key{}, fmt.Errorf("cluster %q's cloud issued no key to the %s", cluster, principal)
}

// ccmImage is the manager's image the node image preloads.
func ccmImage(version string) (string, error) {
	c, err := ccmOf(version)
	return c.Image, err
}

// ccmOf is the cloud-provider-aws manager a version's node image carries.
func ccmOf(version string) (nodeimage.ProviderCCM, error) {
	r, err := nodeimage.Lookup(version)
	if err != nil {
		return nodeimage.ProviderCCM{}, err
	}
	for _, c := range r.ProviderCCMs {
		if c.Provider == Name {
			return c, nil
		}
	}
	return nodeimage.ProviderCCM{}, fmt.Errorf("the %s node image carries no cloud-provider-aws manager", version)
}

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
rules:
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch, update]
- apiGroups: [""]
  resources: [nodes]
  verbs: ["*"]
- apiGroups: [""]
  resources: [nodes/status]
  verbs: [patch]
- apiGroups: [""]
  resources: [services]
  verbs: [list, patch, update, watch]
- apiGroups: [""]
  resources: [services/status]
  verbs: [list, patch, update, watch]
- apiGroups: [""]
  resources: [serviceaccounts]
  verbs: [create]
- apiGroups: [""]
  resources: [persistentvolumes]
  verbs: [get, list, update, watch]
- apiGroups: [""]
  resources: [endpoints]
  verbs: [create, get, list, watch, update]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create, get, list, watch, update]
- apiGroups: [""]
  resources: [serviceaccounts/token]
  verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:cloud-controller-manager
roleRef:
  kind: ClusterRole
  name: system:cloud-controller-manager
  apiGroup: rbac.authorization.k8s.io
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
  name: NAME
  namespace: kube-system
  labels:
    k8s-app: NAME
spec:
  selector:
    matchLabels:
      k8s-app: NAME
  updateStrategy:
    type: RollingUpdate
  template:
    metadata:
      name: NAME
      labels:
        k8s-app: NAME
    spec:
      tolerations:
      - key: node.cloudprovider.kubernetes.io/uninitialized
        value: "true"
        effect: NoSchedule
      - key: node-role.kubernetes.io/master
        effect: NoSchedule
      - key: node-role.kubernetes.io/control-plane
        effect: NoSchedule
      nodeSelector:
        node-role.kubernetes.io/control-plane: ""
      dnsPolicy: Default
      priorityClassName: system-node-critical
      serviceAccountName: cloud-controller-manager
      hostNetwork: true
      containers:
        - name: aws-cloud-controller-manager
          image: IMAGE
          args:
ARGS
          resources:
            requests:
              cpu: 200m
          envFrom:
          - secretRef:
              name: CREDENTIALS
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
