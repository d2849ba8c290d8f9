package cni

import "strings"

// Manifest is the agent's DaemonSet and RBAC in the form kind installs from
// /kind/manifests/default-cni.yaml: kind fills in {{ .PodSubnet }} and adds
// CONTROL_PLANE_ENDPOINT, so the agent needs neither kube-proxy nor DNS.
func Manifest(image string) string {
	return strings.ReplaceAll(manifest, "IMAGE", image)
}

// CloudRoutesManifest is the same agent installed directly (not by kind),
// taking its routes from a simulated cloud's route table. cloudConfig is
// the cloud configuration's path on every node (its address and token),
// mounted read-only into the agent.
func CloudRoutesManifest(image, podSubnet, endpoint, cloudConfig, cluster string) string {
	m := strings.NewReplacer("IMAGE", image, "{{ .PodSubnet }}", podSubnet).Replace(manifest)
	m = strings.Replace(m, "        - --conf-dir=/etc/cni/net.d\n", "        - --conf-dir=/etc/cni/net.d\n        - --cloud-config="+cloudConfig+"\n        - --cluster-name="+cluster+"\n", 1)
	m = strings.Replace(m, "          mountPath: /etc/cni/net.d\n", "          mountPath: /etc/cni/net.d\n        - name: cloud-config\n          mountPath: "+cloudConfig+"\n          readOnly: true\n", 1)
	m += "      - name: cloud-config\n        hostPath:\n          path: " + cloudConfig + "\n          type: File\n"
	return strings.Replace(m, "        env:\n", "        env:\n        - name: CONTROL_PLANE_ENDPOINT\n          value: "+endpoint+"\n", 1)
}

const manifest = `# would you kindly template this file
# would you kindly patch this file
apiVersion: v1
kind: ServiceAccount
metadata:
  name: handover-cni
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: handover-cni
rules:
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: handover-cni
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: handover-cni
subjects:
- kind: ServiceAccount
  name: handover-cni
  namespace: kube-system
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: handover-cni
  namespace: kube-system
  labels:
    app: handover-cni
spec:
  selector:
    matchLabels:
      app: handover-cni
  template:
    metadata:
      labels:
        app: handover-cni
    spec:
      hostNetwork: true
      serviceAccountName: handover-cni
      priorityClassName: system-node-critical
      tolerations:
      - operator: Exists
      containers:
      - name: agent
        image: IMAGE
        imagePullPolicy: IfNotPresent
        args:
        - --pod-network={{ .PodSubnet }}
        - --conf-dir=/etc/cni/net.d
        env:
        - name: NODE_NAME
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
        securityContext:
          privileged: true
        resources:
          requests:
            cpu: 10m
            memory: 20Mi
        volumeMounts:
        - name: cni-conf
          mountPath: /etc/cni/net.d
      volumes:
      - name: cni-conf
        hostPath:
          path: /etc/cni/net.d
          type: DirectoryOrCreate
`
