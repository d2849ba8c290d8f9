package azure

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/modsource"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	azureface "github.com/handover-sh/handover/simulate/cloudserver/azure"
)

// Prepare's files: each side's azure.json names ARM over https and its
// own identity (a kubelet's, none: its node's), and the CA the nodes
// trust may sign only the cloud's address, names under handover.invalid
// and the cluster's registry, whose token key the cloud is given.
func TestPrepareAzure(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	flags, err := prepare("c", endpoints{gateway: "172.18.0.1", armPort: 4443, imdsPort: 8080, nodeNetwork: "172.18.0.0/16"}, cloudcluster.CloudConfigVars{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"--azure-listen 172.18.0.1:4443", "--azure-imds-listen 172.18.0.1:8080", "--azure-node-network 172.18.0.0/16",
		"--registry " + RegistryHost, "--registry-token-key " + filepath.Join(stateDir("c"), "registry", "token.key")} {
		if !strings.Contains(strings.Join(flags, " "), f) {
			t.Errorf("serve flags %v lack %s", flags, f)
		}
	}
	dir := stateDir("c")
	for file, principal := range map[string]string{"azure.json": "", "kcm.json": "kube-controller-manager", "ccm.json": "cloud-controller-manager"} {
		var cfg map[string]any
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg["resourceManagerEndpoint"] != "https://172.18.0.1:4443/" || cfg["useManagedIdentityExtension"] != true || cfg["loadBalancerSku"] != "standard" || cfg["vmType"] != "standard" {
			t.Errorf("%s: %v", file, cfg)
		}
		id, _ := cfg["userAssignedIdentityID"].(string)
		if want := ""; principal != "" {
			want = azureface.ClientID("c", principal)
			if id != want {
				t.Errorf("%s names identity %q, want %s's %q", file, id, principal, want)
			}
		} else if id != "" {
			t.Errorf("%s names identity %q: a kubelet asks as its node", file, id)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ca.PermittedDNSDomains, []string{caDomain, RegistryHost}) || len(ca.PermittedIPRanges) != 1 || !ca.PermittedIPRanges[0].IP.Equal(net.ParseIP("172.18.0.1")) {
		t.Errorf("the CA may sign %v and %v", ca.PermittedDNSDomains, ca.PermittedIPRanges)
	}
}

// The kubeadm patches: in tree, the kube-controller-manager and the
// kubelets run the azure provider (the 1.29 gate turned back), the
// manager with its own azure.json; external, the kubelets are external.
// Every kubelet pulls from the cluster's ACR: in tree on 1.29, through
// the plugin on 1.30.
func TestAzureKubeadmPatches(t *testing.T) {
	in := cloudcluster.ClusterInput{Topology: topology.Topology{Name: "c", Kubernetes: "v1.29.15"}, Mode: cloudcluster.InTree}
	all := strings.Join(Provider{}.KubeadmPatches(in), "\n---\n")
	for _, want := range []string{"cloud-config: " + kcmCloudConfigPath, "cloud-config: " + CloudConfigPath, "feature-gates: DisableCloudProviders=false",
		"DisableCloudProviders: false", "cloud-provider: azure", "cluster-name: c", "DisableKubeletCloudCredentialProviders: false",
		"azure-container-registry-config: " + CloudConfigPath} {
		if !strings.Contains(all, want) {
			t.Errorf("in-tree patches lack %q:\n%s", want, all)
		}
	}
	in.Mode, in.Topology.Kubernetes = cloudcluster.External, "v1.30.14"
	all = strings.Join(Provider{}.KubeadmPatches(in), "\n---\n")
	if !strings.Contains(all, "cloud-provider: external") || strings.Contains(all, "cloud-provider: azure") || strings.Contains(all, "azure-container-registry-config") ||
		!strings.Contains(all, "image-credential-provider-config: "+credentialProviderConfigPath) {
		t.Errorf("external patches:\n%s", all)
	}
}

// Validate: in tree only where the profile has the provider in tree,
// external only with the release's build in the cache.
func TestValidateAzure(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	for _, c := range []struct {
		mode    cloudcluster.Mode
		version string
		want    string
	}{
		{cloudcluster.None, "v1.29.15", "needs a cloud"},
		{cloudcluster.InTree, "v1.30.14", "no in-tree azure provider"},
		{cloudcluster.InTree, "v1.29.15", ""},
		{cloudcluster.External, "v1.30.14", "handover images build --provider azure v1.30.14"},
		{cloudcluster.External, "v1.31.4", "azure has no on-demand components for v1.31.4"},
	} {
		err := Provider{}.Validate(cloudcluster.ClusterInput{Topology: topology.Topology{Kubernetes: c.version}, Mode: c.mode})
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.mode, c.version, err, c.want)
		}
	}
}

// Control planes get the managers' azure.json files, workers do not;
// every node gets the kubelets', the CA and the bootstrap.
func TestAzureNodeMounts(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	paths := func(role v1alpha4.NodeRole) []string {
		var out []string
		for _, m := range (Provider{}).NodeMounts("c", "n", role) {
			out = append(out, m.ContainerPath)
		}
		return out
	}
	cp, w := paths(v1alpha4.ControlPlaneRole), paths(v1alpha4.WorkerRole)
	for _, p := range []string{CloudConfigPath, caPath, bootstrapKubeadmPath} {
		if !slices.Contains(cp, p) || !slices.Contains(w, p) {
			t.Errorf("%s not on every node: %v / %v", p, cp, w)
		}
	}
	if !slices.Contains(cp, CCMCloudConfigPath) || slices.Contains(w, kcmCloudConfigPath) || slices.Contains(w, CCMCloudConfigPath) {
		t.Errorf("the managers' files: control planes %v, workers %v", cp, w)
	}
}

// TestNodeMetadataLagHoldsInItsSource: the in-tree provider's kubelets
// read the load balancers' public IPs through a one-minute cache of the
// metadata service, which the lag covers.
func TestNodeMetadataLagHoldsInItsSource(t *testing.T) {
	dir := modsource.Dir(t, "k8s.io/legacy-cloud-providers@v0.29.15")
	src, ok := modsource.Text(t, dir, "azure/azure_instance_metadata.go")
	if !ok {
		t.Fatal("no azure/azure_instance_metadata.go")
	}
	for _, want := range []string{"metadataCacheTTL           = time.Minute", `imdsLoadBalancerURI        = "/metadata/loadbalancer"`, "netInterface.IPV4.IPAddress[0].PublicIP = pip.FrontendIPAddress"} {
		if !strings.Contains(src, want) {
			t.Errorf("azure_instance_metadata.go no longer has %q", want)
		}
	}
	if lag := (Provider{}).NodeMetadataLag(); lag < time.Minute+10*time.Second {
		t.Errorf("lag %s is shorter than the cache and a status update", lag)
	}
}

// TestRouteBatchHoldsInItsSource: both providers write the route table in
// batches every 30 s, which RouteBatch says.
func TestRouteBatchHoldsInItsSource(t *testing.T) {
	for _, c := range []struct{ module, file, want string }{
		{"k8s.io/legacy-cloud-providers@v0.29.15", "azure/azure_routes.go", "routeUpdateInterval = 30 * time.Second"},
		{"sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/consts/consts.go", "DefaultRouteUpdateIntervalInSeconds = 30"},
	} {
		src, ok := modsource.Text(t, modsource.Dir(t, c.module), c.file)
		if !ok || !strings.Contains(src, c.want) {
			t.Errorf("%s %s no longer has %q", c.module, c.file, c.want)
		}
	}
	if b := (Provider{}).RouteBatch(); b != 30*time.Second {
		t.Errorf("RouteBatch %s, the sources say 30s", b)
	}
}

// A side given the user's azure.json runs with its carried fields: the
// in-tree side's file sets no loadBalancerSku, so its azure.json and
// kcm.json have none (basic, as the in-tree provider reads it) and its
// rate limit; the cloud-controller-manager's keeps handover's own. The
// rehearsal's endpoint and identities stay.
func TestPrepareCarriesAUsersFile(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	own := cloudcluster.CloudConfigVars{KCM: [][2]string{{"cloudProviderRateLimit", "true"}}}
	if _, err := prepare("c", endpoints{gateway: "172.18.0.1", armPort: 4443, imdsPort: 8080, nodeNetwork: "172.18.0.0/16"}, own); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]struct {
		sku       string
		rateLimit any
	}{"azure.json": {"", true}, "kcm.json": {"", true}, "ccm.json": {"standard", nil}} {
		var cfg map[string]any
		raw, err := os.ReadFile(filepath.Join(stateDir("c"), file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg["loadBalancerSku"] != want.sku || cfg["cloudProviderRateLimit"] != want.rateLimit || cfg["resourceManagerEndpoint"] != "https://172.18.0.1:4443/" {
			t.Errorf("%s: %v", file, cfg)
		}
	}
}
