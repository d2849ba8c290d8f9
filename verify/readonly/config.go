package readonly

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Config loads a kubeconfig file's context ("" for its current one) as a
// client configuration whose every request is a read.
func Config(path, context string) (*rest.Config, error) {
	if path == "" {
		return nil, errors.New("no kubeconfig: give --kubeconfig FILE")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if len(raw.Contexts) == 0 {
		return nil, fmt.Errorf("kubeconfig %s has no contexts: is it a kubeconfig? (kubectl config view --kubeconfig %s)", path, path)
	}
	if context != "" {
		if _, ok := raw.Contexts[context]; !ok {
			return nil, fmt.Errorf("kubeconfig %s has no context %q (kubectl config get-contexts --kubeconfig %s)", path, context, path)
		}
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*raw, context, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	rc.UserAgent = "handover-observer"
	rc.Wrap(Guard)
	return rc, nil
}
