// Command handover-credential-provider is the simulated cloud's kubelet
// image credential provider plugin, as ecr-credential-provider is AWS's:
// the kubelet runs it (--image-credential-provider-config) with a
// CredentialProviderRequest on standard input for an image its
// configuration's matchImages match, and reads the registry's credentials
// from standard output (k8s.io/kubelet's credentialprovider/v1 API). It
// gets them from the cloud with the credentials of the cloud
// configuration every node has.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	credv1 "k8s.io/kubelet/pkg/apis/credentialprovider/v1"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/credentials"
)

// maxRequest bounds what is read from the kubelet.
const maxRequest = 64 << 10

func main() {
	config := flag.String("cloud-config", credentials.NodeConfigPath, "the simulated cloud's configuration (its url, token and registry)")
	flag.Parse()
	src, err := credentials.Load(*config, "kubelet")
	if err != nil {
		log.Fatalf("handover-credential-provider: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := provide(ctx, os.Stdin, os.Stdout, src.Matches, src.Token); err != nil {
		log.Fatalf("handover-credential-provider: %v", err)
	}
}

// provide answers one request.
func provide(ctx context.Context, in io.Reader, out io.Writer, matches func(string) bool, token func(context.Context) (*api.RegistryToken, error)) error {
	var req credv1.CredentialProviderRequest
	dec := json.NewDecoder(io.LimitReader(in, maxRequest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return fmt.Errorf("reading the kubelet's request: %w", err)
	}
	if req.APIVersion != credv1.SchemeGroupVersion.String() || req.Kind != "CredentialProviderRequest" {
		return fmt.Errorf("a request of %s %s: this plugin speaks %s", req.APIVersion, req.Kind, credv1.SchemeGroupVersion)
	}
	if req.Image == "" {
		return errors.New("the request names no image")
	}
	resp := credv1.CredentialProviderResponse{
		TypeMeta:     metav1.TypeMeta{APIVersion: credv1.SchemeGroupVersion.String(), Kind: "CredentialProviderResponse"},
		CacheKeyType: credv1.RegistryPluginCacheKeyType,
		Auth:         map[string]credv1.AuthConfig{},
	}
	if matches(req.Image) {
		t, err := token(ctx)
		if err != nil {
			return err
		}
		// Cached by the kubelet until shortly before the token lapses.
		life := time.Until(t.ExpiresAt) - credentials.RenewBefore
		if life <= 0 {
			return fmt.Errorf("the cloud's token for %s expires at %s already", t.Registry, t.ExpiresAt.Format(time.RFC3339))
		}
		resp.CacheDuration = &metav1.Duration{Duration: life.Round(time.Second)}
		resp.Auth[t.Registry] = credv1.AuthConfig{Username: t.Username, Password: t.Password}
	}
	return json.NewEncoder(out).Encode(resp)
}
