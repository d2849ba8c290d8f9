package main

// The in-tree aws provider of Kubernetes 1.26, as kube-controller-manager
// and kubelet register it.
import _ "k8s.io/legacy-cloud-providers/aws"
