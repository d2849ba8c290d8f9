package main

import (
	"context"
	"io"

	cloudprovider "k8s.io/cloud-provider"
	"sigs.k8s.io/cloud-provider-azure/pkg/provider"
)

// newCloud builds the provider as cloud-provider-azure v1.30.4's
// cloud-controller-manager does, from its config file's content
// (pkg/provider/azure.go NewCloudFromConfigFile: ParseConfig, then
// NewCloud as the manager).
func newCloud(ctx context.Context, config io.Reader) (cloudprovider.Interface, error) {
	cfg, err := provider.ParseConfig(config)
	if err != nil {
		return nil, err
	}
	return provider.NewCloud(ctx, cfg, true)
}
