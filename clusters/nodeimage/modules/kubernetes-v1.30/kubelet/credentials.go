package main

import (
	"context"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/credentialprovider"

	"github.com/handover-sh/handover/simulate/cloudprovider/credentials"
)

// inTreeRegistry is the simulated cloud's in-tree image credential
// provider, registered as the in-tree GCR and ACR providers register
// themselves (pkg/credentialprovider/gcp, azure) and, like them, off once
// DisableKubeletCloudCredentialProviders is on (gcp/metadata.go Enabled):
// from 1.29 it is on by default, so an in-tree cluster that pulls this way
// turns it off. Each file of this name in the kubelet mains is the same.
type inTreeRegistry struct{ src *credentials.Source }

func registerCredentials() {
	src, err := credentials.Load(credentials.NodeConfigPath, "kubelet")
	if err != nil {
		klog.V(2).InfoS("The simulated cloud's in-tree credential provider is off", "reason", err)
		return
	}
	credentialprovider.RegisterCredentialProvider("handover-simcloud", inTreeRegistry{src})
}

func (p inTreeRegistry) Enabled() bool {
	return !credentialprovider.AreLegacyCloudCredentialProvidersDisabled()
}

func (p inTreeRegistry) Provide(image string) credentialprovider.DockerConfig {
	if !p.src.Matches(image) {
		return credentialprovider.DockerConfig{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t, err := p.src.Token(ctx)
	if err != nil {
		klog.ErrorS(err, "Getting the simulated cloud's registry token", "image", image)
		return credentialprovider.DockerConfig{}
	}
	return credentialprovider.DockerConfig{t.Registry: credentialprovider.DockerConfigEntry{Username: t.Username, Password: t.Password}}
}
