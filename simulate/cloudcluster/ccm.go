package cloudcluster

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/cmdline"
)

// Workloads the cloud-controller-manager can run as (clusters/managers).
const (
	DaemonSet  = managers.DaemonSet
	Deployment = managers.Deployment
	StaticPod  = managers.StaticPod
)

// CCMArgs are the cloud-controller-manager flags every workload shares.
func CCMArgs(cluster, podSubnet string) []string {
	return []string{
		"--cloud-provider=" + ProviderName,
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
}

// CCMManifest runs the cloud-controller-manager on the control planes as a
// DaemonSet, or as a Deployment of replicas, with its RBAC. extraArgs are
// added to its command line (e.g. leader migration flags).
func CCMManifest(workload string, replicas int, version, cluster, podSubnet string, extraArgs ...string) string {
	m := strings.NewReplacer("IMAGE", nodeimage.CCMImage(version), "ARGS\n", ArgLines(cmdline.Merge(CCMArgs(cluster, podSubnet), extraArgs), 8),
		"CLOUD_CONFIG", CloudConfigPath).Replace(ccmWorkload)
	if workload == Deployment {
		m = strings.Replace(m, "kind: DaemonSet\n", "kind: Deployment\n", 1)
		// One per control plane and never two on a node (host network):
		// an update replaces a pod at a time instead of surging.
		m = strings.Replace(m, "spec:\n  selector:\n    matchLabels:\n      component: cloud-controller-manager\n",
			fmt.Sprintf("spec:\n  replicas: %d\n  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 1\n  selector:\n    matchLabels:\n      component: cloud-controller-manager\n", replicas), 1)
		// One replica per control plane, never two on one node.
		m = strings.Replace(m, "      hostNetwork: true\n", "      hostNetwork: true\n"+AntiAffinity, 1)
	}
	return CCMRBAC + "---\n" + m
}

// ArgLines are a container's arguments as a manifest's list items,
// indented by indent.
func ArgLines(args []string, indent int) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(strings.Repeat(" ", indent) + "- " + a + "\n")
	}
	return b.String()
}

// AntiAffinity keeps a Deployment's replicas of the manager on distinct
// nodes (its pods labelled component: cloud-controller-manager).
const AntiAffinity = `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                component: cloud-controller-manager
            topologyKey: kubernetes.io/hostname
`

const ccmWorkload = `apiVersion: apps/v1
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

// LeaderMigrationConfigMap holds the leader migration configuration a
// DaemonSet or Deployment cloud-controller-manager mounts.
const LeaderMigrationConfigMap = "cloud-controller-manager-leader-migration"

// CCMManifestWithConfig is CCMManifest plus a LeaderMigrationConfiguration
// in a ConfigMap, mounted at path; extraArgs should point at it.
func CCMManifestWithConfig(workload string, replicas int, version, cluster, podSubnet, config, path string, extraArgs ...string) string {
	return WithLeaderMigrationConfig(CCMManifest(workload, replicas, version, cluster, podSubnet, extraArgs...), "        ", config, path)
}

// WithLeaderMigrationConfig mounts a leader-migration configuration at
// path into a workload manifest's container (whose volumeMounts are
// indented by indent) from a ConfigMap, which it puts first.
func WithLeaderMigrationConfig(m, indent, config, path string) string {
	mounts := indent + "volumeMounts:\n"
	m = strings.Replace(m, mounts, mounts+indent+"- name: leader-migration\n"+indent+"  mountPath: "+path+"\n"+indent+"  subPath: leadermigration.conf\n"+indent+"  readOnly: true\n", 1)
	m = strings.Replace(m, "      volumes:\n", "      volumes:\n      - name: leader-migration\n        configMap:\n          name: "+LeaderMigrationConfigMap+"\n", 1)
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(config, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + LeaderMigrationConfigMap + "\n  namespace: kube-system\ndata:\n  leadermigration.conf: |\n" + b.String()
	return cm + "---\n" + m
}
