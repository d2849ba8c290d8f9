package rancher

import (
	"errors"
	"fmt"
	"slices"
)

// Errors for a file of the other kind, for errors.Is: a caller can say how
// to give it instead.
var (
	ErrIsRKEConfig           = errors.New("an RKE cluster.yml")
	ErrIsProvisioningCluster = errors.New("a " + provisioningAPI + " " + provisioningKind)
)

// The object an RKE2 or K3s cluster is in Rancher.
const (
	provisioningAPI  = "provisioning.cattle.io/v1"
	provisioningKind = "Cluster"
)

// rkeKeys are top-level keys of an RKE cluster.yml (and of Rancher's RKE
// cluster configuration, which holds it under
// rancher_kubernetes_engine_config): a file with none of them is not one.
var rkeKeys = []string{"nodes", "services", "cloud_provider", "kubernetes_version", "cluster_name", rkeWrapper}

// rkeWrapper holds RKE's configuration in Rancher's own cluster YAML.
const rkeWrapper = "rancher_kubernetes_engine_config"

// objectKind reads a document's apiVersion and kind ("" when absent).
func objectKind(top field) (api, kind string, err error) {
	a, err := top.get("apiVersion")
	if err != nil {
		return "", "", err
	}
	k, err := top.get("kind")
	if err != nil {
		return "", "", err
	}
	if api, err = a.str(); err != nil {
		return "", "", err
	}
	kind, err = k.str()
	return api, kind, err
}

// hasRKEKeys says whether top has a key only an RKE cluster.yml has.
func hasRKEKeys(top field) bool {
	keys, _, _ := top.entries()
	return slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(rkeKeys, k) })
}

// wantProvisioning refuses a document that is not a provisioning Cluster,
// saying what it is instead.
func wantProvisioning(top field) error {
	api, kind, err := objectKind(top)
	switch {
	case err != nil:
		return err
	case api == provisioningAPI && kind == provisioningKind:
		return nil
	case api == "" && kind == "" && hasRKEKeys(top):
		return fmt.Errorf("%s: no apiVersion and kind: %w, not a %s %s", top.at(), ErrIsRKEConfig, provisioningAPI, provisioningKind)
	case api == "" && kind == "":
		return top.errorf("no apiVersion and kind: want a %s %s", provisioningAPI, provisioningKind)
	}
	return top.errorf("%s %s: want a %s %s (the cluster's YAML in Rancher, as kubectl get clusters.provisioning.cattle.io -o yaml prints it)",
		orNone(api), orNone(kind), provisioningAPI, provisioningKind)
}

// wantRKE refuses a document that is not an RKE cluster.yml.
func wantRKE(top field) error {
	api, kind, err := objectKind(top)
	switch {
	case err != nil:
		return err
	case api == provisioningAPI && kind == provisioningKind:
		return fmt.Errorf("%s: %w, not an RKE cluster.yml", top.at(), ErrIsProvisioningCluster)
	case api != "" || kind != "":
		return top.errorf("%s %s, not an RKE cluster.yml (which has no apiVersion or kind)", orNone(api), orNone(kind))
	case !hasRKEKeys(top):
		return top.errorf("not an RKE cluster.yml: it has none of %v", rkeKeys)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return fmt.Sprintf("%q", s)
	}
	return s
}
