package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	credv1 "k8s.io/kubelet/pkg/apis/credentialprovider/v1"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

const reg = "registry.sim-region-1.simcloud.internal"

func matches(image string) bool { return strings.HasPrefix(image, reg+"/") }

func token(context.Context) (*api.RegistryToken, error) {
	return &api.RegistryToken{Registry: reg, Username: "simcloud", Password: "p", ExpiresAt: time.Now().Add(time.Hour)}, nil
}

func request(image string) string {
	return `{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderRequest","image":"` + image + `"}`
}

// The kubelet's request gets the cloud's token for the registry, cached
// for the registry until shortly before it lapses; an image elsewhere
// gets no credentials; a request the plugin does not speak is an error.
func TestProvide(t *testing.T) {
	var out strings.Builder
	if err := provide(context.Background(), strings.NewReader(request(reg+"/handover/echo:v1")), &out, matches, token); err != nil {
		t.Fatal(err)
	}
	var resp credv1.CredentialProviderResponse
	if err := json.Unmarshal([]byte(out.String()), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Kind != "CredentialProviderResponse" || resp.APIVersion != "credentialprovider.kubelet.k8s.io/v1" || resp.CacheKeyType != credv1.RegistryPluginCacheKeyType {
		t.Fatalf("response %+v", resp)
	}
	if a := resp.Auth[reg]; a.Username != "simcloud" || a.Password != "p" {
		t.Fatalf("auth %+v", resp.Auth)
	}
	if d := resp.CacheDuration.Duration; d < 50*time.Minute || d > 56*time.Minute {
		t.Fatalf("cache duration %s", d)
	}
	out.Reset()
	if err := provide(context.Background(), strings.NewReader(request("docker.io/library/busybox")), &out, matches, token); err != nil || strings.Contains(out.String(), `"p"`) {
		t.Fatalf("an image elsewhere: %v, %s", err, out.String())
	}
	failing := func(context.Context) (*api.RegistryToken, error) { return nil, errors.New("403 denied") }
	for name, c := range map[string]struct {
		in  string
		tok func(context.Context) (*api.RegistryToken, error)
	}{
		"malformed":     {"{", token},
		"another API":   {strings.Replace(request(reg+"/x"), "/v1", "/v1alpha1", 1), token},
		"unknown field": {`{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderRequest","image":"x","extra":1}`, token},
		"no image":      {request(""), token},
		"cloud refuses": {request(reg + "/x"), failing},
	} {
		if err := provide(context.Background(), strings.NewReader(c.in), &out, matches, c.tok); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
