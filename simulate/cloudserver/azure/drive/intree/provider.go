package main

import (
	"context"
	"io"

	cloudprovider "k8s.io/cloud-provider"
	// The in-tree azure provider of Kubernetes 1.29, as
	// kube-controller-manager and the kubelet register it
	// (k8s.io/kubernetes@v1.29.15 pkg/cloudprovider/providers/providers.go).
	_ "k8s.io/legacy-cloud-providers/azure"
)

// newCloud builds the provider as the components do: by its registered
// name, from the cloud-config.
func newCloud(_ context.Context, config io.Reader) (cloudprovider.Interface, error) {
	return cloudprovider.GetCloudProvider("azure", config)
}
