package readonly

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// Config loads a kubeconfig file's context ("" for its current one) as a
// client configuration whose every request is a read. The kubeconfig and
// every file its context names (CA, client certificate and key, token) are
// read through boundedfile: a device or a FIFO given for any of them is
// refused at once rather than read without end or waited on.
func Config(path, context string) (*rest.Config, error) {
	if path == "" {
		return nil, errors.New("no kubeconfig: give --kubeconfig FILE")
	}
	raw, err := load(path)
	if err != nil {
		return nil, err
	}
	if len(raw.Contexts) == 0 {
		return nil, fmt.Errorf("kubeconfig %s has no contexts: is it a kubeconfig? (kubectl config view --kubeconfig %s)", path, path)
	}
	if context != "" {
		if _, ok := raw.Contexts[context]; !ok {
			return nil, fmt.Errorf("kubeconfig %s has no context %q (kubectl config get-contexts --kubeconfig %s)", path, context, path)
		}
	}
	if err := inline(raw, context); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*raw, context, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	rc.UserAgent = "handover-observer"
	rc.Wrap(Guard)
	return rc, nil
}

// load reads a kubeconfig as clientcmd.LoadFromFile does, through
// boundedfile: relative paths in it are the kubeconfig's directory's, as
// kubectl takes them.
func load(path string) (*clientcmdapi.Config, error) {
	b, err := boundedfile.Read(path, boundedfile.ConfigLimit)
	if err != nil && !errors.Is(err, boundedfile.ErrEmpty) { // empty: no contexts, said below
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	raw, err := clientcmd.Load(b)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	for _, c := range raw.Clusters {
		c.LocationOfOrigin = path
	}
	for _, a := range raw.AuthInfos {
		a.LocationOfOrigin = path
	}
	for _, c := range raw.Contexts {
		c.LocationOfOrigin = path
	}
	if err := clientcmd.ResolveLocalPaths(raw); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return raw, nil
}

// inline reads the files the context names through boundedfile into the
// kubeconfig, so client-go opens none of them itself. The token file stays
// named beside its token: client-go reads it again as it rotates.
func inline(raw *clientcmdapi.Config, context string) error {
	if context == "" {
		context = raw.CurrentContext
	}
	ctx := raw.Contexts[context]
	if ctx == nil {
		return nil // clientcmd names what is missing
	}
	if c := raw.Clusters[ctx.Cluster]; c != nil {
		if err := inlineFile(&c.CertificateAuthority, &c.CertificateAuthorityData, "certificate-authority"); err != nil {
			return err
		}
	}
	a := raw.AuthInfos[ctx.AuthInfo]
	if a == nil {
		return nil
	}
	for _, f := range []struct {
		path *string
		data *[]byte
		name string
	}{{&a.ClientCertificate, &a.ClientCertificateData, "client-certificate"}, {&a.ClientKey, &a.ClientKeyData, "client-key"}} {
		if err := inlineFile(f.path, f.data, f.name); err != nil {
			return err
		}
	}
	if a.TokenFile != "" && a.Token == "" {
		b, err := boundedfile.Read(a.TokenFile, boundedfile.ConfigLimit)
		if err != nil {
			return fmt.Errorf("tokenFile: %w", err)
		}
		a.Token = strings.TrimSpace(string(b))
	}
	return nil
}

// inlineFile reads *path into *data and forgets the path. Both given are
// refused here, as clientcmd would refuse them, but before clientcmd opens
// the path to say so.
func inlineFile(path *string, data *[]byte, name string) error {
	switch {
	case *path == "":
		return nil
	case len(*data) > 0:
		return fmt.Errorf("%s and %s-data are both given: keep one", name, name)
	}
	b, err := boundedfile.Read(*path, boundedfile.ConfigLimit)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	*path, *data = "", b
	return nil
}
