package aws

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/providers/aws/awsconfig"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// testEndpoints are a cloud's endpoints as a create picks them.
var testEndpoints = endpoints{gateway: "172.18.0.1", apiPort: 4000, metaPort: 4001, tlsPort: 4002, nodeNetwork: "172.18.0.0/16"}

// prepared prepares cluster c1's aws files, as a create does before kind
// runs.
func prepared(t *testing.T) {
	t.Helper()
	if _, err := prepare("c1", testEndpoints, cloudcluster.CloudConfigVars{}, nil); err != nil {
		t.Fatal(err)
	}
}

// configured is a kind configuration of nodes as a create configures it
// for the aws provider: its mounts on each node (kind's names), its
// kubeadm patches.
func configured(mode cloudcluster.Mode, version string, nodes ...v1alpha4.Node) *v1alpha4.Cluster {
	cfg := &v1alpha4.Cluster{Nodes: nodes}
	count := map[v1alpha4.NodeRole]int{}
	for i, n := range cfg.Nodes {
		count[n.Role]++
		name := "c1-" + string(n.Role)
		if count[n.Role] > 1 {
			name += strconv.Itoa(count[n.Role])
		}
		cfg.Nodes[i].ExtraMounts = Provider{}.NodeMounts("c1", name, n.Role)
	}
	in := cloudcluster.ClusterInput{Topology: topology.Topology{Name: "c1", Kubernetes: version}, Mode: mode}
	cfg.KubeadmConfigPatches = Provider{}.KubeadmPatches(in)
	return cfg
}

// Every node gets the provider's cloud-config, the kubelet's key and the
// bootstrap; only control planes get the manager's key; kubeadm names
// nodes from the metadata; in-tree, the manager runs the aws provider.
func TestConfigureAWS(t *testing.T) {
	cfg := configured(cloudcluster.InTree, "v1.26.13", v1alpha4.Node{Role: v1alpha4.ControlPlaneRole}, v1alpha4.Node{Role: v1alpha4.WorkerRole})
	mounted := func(n v1alpha4.Node, path string) bool {
		for _, m := range n.ExtraMounts {
			if m.ContainerPath == path {
				return m.Readonly && strings.HasPrefix(m.HostPath, stateDir("c1"))
			}
		}
		return false
	}
	for _, p := range []string{CloudConfigPath, kubeletEnvPath, bootstrapKubeadmPath, patchDir} {
		for _, n := range cfg.Nodes {
			if !mounted(n, p) {
				t.Errorf("%s node: %s not mounted read-only from the cluster's state", n.Role, p)
			}
		}
	}
	if !mounted(cfg.Nodes[0], kcmCredentials) || mounted(cfg.Nodes[1], kcmCredentials) {
		t.Errorf("the manager's key must be on control planes only")
	}
	var sawInit, sawManager bool
	for _, p := range cfg.KubeadmConfigPatches {
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(p), &doc); err != nil {
			t.Fatalf("patch is not YAML: %v\n%s", err, p)
		}
		switch doc["kind"] {
		case "InitConfiguration", "JoinConfiguration":
			sawInit = true
			reg := doc["nodeRegistration"].(map[string]any)
			args := reg["kubeletExtraArgs"].(map[string]any)
			if reg["name"] != NodeNameFromMetadata || args["cloud-provider"] != Name || args["cloud-config"] != CloudConfigPath {
				t.Errorf("%s: %v", doc["kind"], reg)
			}
		case "ClusterConfiguration":
			sawManager = true
			args := doc["controllerManager"].(map[string]any)["extraArgs"].(map[string]any)
			if args["cloud-provider"] != Name || args["cluster-name"] != "c1" {
				t.Errorf("the manager's flags: %v", args)
			}
		}
	}
	if !sawInit || !sawManager {
		t.Errorf("patches miss the node registration or the manager: %v", cfg.KubeadmConfigPatches)
	}

	ext := configured(cloudcluster.External, "v1.27.4", v1alpha4.Node{Role: v1alpha4.ControlPlaneRole})
	joined := strings.Join(ext.KubeadmConfigPatches, "\n---\n")
	if !strings.Contains(joined, "cloud-provider: external") || strings.Contains(joined, "controllerManager") {
		t.Errorf("external: kubelets external, the manager left alone:\n%s", joined)
	}
	if !strings.Contains(joined, "image-credential-provider-config: "+credentialProviderConfigPath) {
		t.Errorf("a v1.27 kubelet is not given its image credential provider:\n%s", joined)
	}
}

// The files a cluster's nodes get: the cloud-config points at the cloud's
// AWS API and names the cluster; each manager has its own key, which the
// keys' file the cloud serves holds; no kubelet key is shared (each
// node's is its own, TestEachNodeMountsItsOwnKubeletKey).
func TestPrepareAWS(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	args, err := prepare("c1", testEndpoints, cloudcluster.CloudConfigVars{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := stateDir("c1")
	want := []string{"--aws-keys", filepath.Join(dir, "keys.json"), "--aws-listen", "172.18.0.1:4000", "--aws-cluster-id", "c1",
		"--node-network", "172.18.0.0/16", "--imds-listen", "172.18.0.1:4001", "--imds-require-token",
		"--aws-tls-listen", "172.18.0.1:4002", "--aws-tls-cert", filepath.Join(dir, "ecr-api.crt"), "--aws-tls-key", filepath.Join(dir, "ecr-api.key"),
		"--registry-token-key", filepath.Join(dir, "registry", "token.key")}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("serve flags %v, want %v", args, want)
	}
	keys, err := amazon.ReadKeys(filepath.Join(dir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	byPrincipal := map[string]string{}
	for id, k := range keys {
		byPrincipal[k.Principal] = id
	}
	read := func(name string) string {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	if conf := read("cloud.conf"); !strings.Contains(conf, "URL = http://172.18.0.1:4000/ec2") || !strings.Contains(conf, "KubernetesClusterID = c1") {
		t.Errorf("cloud.conf:\n%s", conf)
	}
	if _, err := os.Stat(filepath.Join(dir, "kubelet.env")); err == nil || byPrincipal["kubelet"] != "" {
		t.Errorf("a kubelet key shared by every node (keys %v)", byPrincipal)
	}
	if c := read("kube-controller-manager.credentials"); !strings.Contains(c, "aws_access_key_id = "+byPrincipal["kube-controller-manager"]+"\n") {
		t.Errorf("the manager's credentials hold another key")
	}
	if p := read("patches/kube-controller-manager+strategic.yaml"); !strings.Contains(p, kcmCredentials) {
		t.Errorf("the manager's patch:\n%s", p)
	}
	if len(byPrincipal) != len(principals) {
		t.Errorf("keys for %v, want one each for %v", byPrincipal, principals)
	}
	if fi, err := os.Stat(filepath.Join(dir, "bootstrap-kubeadm")); err != nil || fi.Mode().Perm()&0o100 == 0 || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("the bootstrap must be executable by root alone: %v %v", fi.Mode(), err)
	}
}

// ECR's names are served with certificates of the cluster's CA, which the
// nodes get for them alone: containerd's certs.d for the registry, the
// SDK's bundle for the API; the registry and the cloud share a token key.
func TestPrepareRegistry(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	prepared(t)
	dir := stateDir("c1")
	roots := x509.NewCertPool()
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if !roots.AppendCertsFromPEM(ca) {
		t.Fatal("no CA certificate")
	}
	verify := func(certFile, keyFile string, names ...string) {
		t.Helper()
		pair, err := tls.LoadX509KeyPair(filepath.Join(dir, certFile), filepath.Join(dir, keyFile))
		if err != nil {
			t.Fatal(err)
		}
		leaf, _ := x509.ParseCertificate(pair.Certificate[0])
		for _, n := range names {
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: n}); err != nil {
				t.Errorf("%s for %s: %v", certFile, n, err)
			}
		}
	}
	verify("ecr-api.crt", "ecr-api.key", ecrAPIHost, "172.18.0.1")
	verify("registry/tls.crt", "registry/tls.key", registryHost, ecrAPIHost)
	hosts, _ := os.ReadFile(filepath.Join(dir, "certs.d", "hosts.toml"))
	if !strings.Contains(string(hosts), `[host."https://`+registryHost+`"]`) || !strings.Contains(string(hosts), `ca = "`+registryCertsDir+`/ca.crt"`) {
		t.Errorf("hosts.toml:\n%s", hosts)
	}
	if same, _ := os.ReadFile(filepath.Join(dir, "certs.d", "ca.crt")); string(same) != string(ca) {
		t.Error("containerd trusts another CA")
	}
	if _, err := ecrtoken.ReadKey(filepath.Join(dir, "registry", "token.key")); err != nil {
		t.Error(err)
	}
}

// aws clusters are refused where the provider's code cannot run.
func TestValidateAWS(t *testing.T) {
	for _, c := range []struct {
		mode    cloudcluster.Mode
		version string
		ok      bool
	}{
		{cloudcluster.InTree, "v1.26.13", true}, {cloudcluster.InTree, "v1.27.4", false}, {cloudcluster.External, "v1.27.4", true},
		{cloudcluster.External, "v1.30.14", false}, {cloudcluster.None, "v1.26.13", false},
	} {
		err := Provider{}.Validate(cloudcluster.ClusterInput{Mode: c.mode, Topology: topology.Topology{Kubernetes: c.version}})
		if (err == nil) != c.ok {
			t.Errorf("%s %s: %v", c.mode, c.version, err)
		}
	}
}

// The aws manager's objects are the chart's, with the image the node image
// preloads, the cluster's cloud-config and the manager's own key.
func TestAWSCCMManifest(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	if _, err := prepare("c1", endpoints{gateway: "172.18.0.1", apiPort: 4000, metaPort: 4001, nodeNetwork: "172.18.0.0/16"}, cloudcluster.CloudConfigVars{}, nil); err != nil {
		t.Fatal(err)
	}
	keys, _ := amazon.ReadKeys(filepath.Join(stateDir("c1"), "keys.json"))
	secret, err := credentialsSecret("c1")
	if err != nil {
		t.Fatal(err)
	}
	var sec struct{ Data map[string]string }
	if err := yaml.Unmarshal([]byte(secret), &sec); err != nil {
		t.Fatal(err)
	}
	id, _ := base64.StdEncoding.DecodeString(sec.Data["AWS_ACCESS_KEY_ID"])
	if k, ok := keys[string(id)]; !ok || k.Principal != "cloud-controller-manager" {
		t.Errorf("the Secret holds %q, not the manager's key", id)
	}
	m := chartManifest("v1.27.4", "c1", "10.244.0.0/16", "--enable-leader-migration")
	var kinds []string
	for _, doc := range strings.Split(m, "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		kinds = append(kinds, obj["kind"].(string))
		if obj["kind"] == "DaemonSet" {
			for _, want := range []string{"image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.27.2", "- --cloud-provider=aws",
				"- --cloud-config=" + CCMCloudConfigPath, "- --cluster-name=c1", "- --enable-leader-migration", "name: " + ccmCredentials} {
				if !strings.Contains(doc, want) {
					t.Errorf("the DaemonSet lacks %q:\n%s", want, doc)
				}
			}
		}
	}
	if want := []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "RoleBinding", "DaemonSet"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("objects %v, want %v", kinds, want)
	}
}

// A user's variables go into each side's file in place of handover's
// cluster ID, read back as the providers read them, and the cloud tags
// the cluster's resources with the in-tree side's cluster ID.
func TestAWSUserCloudConfigs(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	standIn, _ := awsconfig.StandInFor("RouteTableID", "rtb-0a1b2c3d")
	own := cloudcluster.CloudConfigVars{KCM: [][2]string{{"KubernetesClusterID", "prod"}, {"DisableSecurityGroupIngress", "true"}, {"RouteTableID", standIn}},
		CCM: [][2]string{{"KubernetesClusterID", "other \"one\"\nline"}}}
	flags, err := prepare("c1", endpoints{gateway: "172.18.0.1", apiPort: 4000, metaPort: 4001, nodeNetwork: "172.18.0.0/16"}, own, nil)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(flags, "--aws-cluster-id"); i < 0 || flags[i+1] != "prod" {
		t.Errorf("the cloud's flags %v do not tag with the in-tree side's cluster ID", flags)
	}
	for file, want := range map[string]struct {
		code string
		vars map[string]string
	}{
		"cloud.conf": {"k8s.io/legacy-cloud-providers/aws@v0.26.13", map[string]string{"KubernetesClusterID": "prod", "DisableSecurityGroupIngress": "true",
			"RouteTableID": amazon.Network{Cluster: "c1"}.RouteTable()}},
		"cloud-ccm.conf": {"k8s.io/cloud-provider-aws@v1.27.2", map[string]string{"KubernetesClusterID": "other \"one\"\nline"}},
	} {
		raw, err := os.ReadFile(filepath.Join(stateDir("c1"), file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := awsconfig.Read(want.code, string(raw))
		if err != nil {
			t.Fatalf("%s: %v\n%s", file, err, raw)
		}
		if !reflect.DeepEqual(got.Global, want.vars) || len(got.Overrides) != 2 {
			t.Errorf("%s reads as %v with %d overrides, want %v and handover's 2:\n%s", file, got.Global, len(got.Overrides), want.vars, raw)
		}
	}
}

// Every variable the rehearsal carries with the cluster's own resource in
// place of the user's has that resource here.
func TestEveryStandInHasTheClustersOwn(t *testing.T) {
	for _, code := range awsconfig.Codes() {
		for _, name := range awsconfig.Fields(code) {
			if _, ok := awsconfig.StandInFor(name, "x"); ok != (standIns[name] != nil) {
				t.Errorf("%s [Global] %s: a stand-in %v, the cluster's own %v", code, name, ok, standIns[name] != nil)
			}
		}
	}
}

// A side without a file of the user's keeps handover's file, naming the
// cluster the cloud tags: the other side's, when its file names one.
func TestAWSOneSideCloudConfig(t *testing.T) {
	base := amazon.ProviderConfig{Region: "r1", AWS: "http://10.0.0.1:4000", ClusterID: "c1"}
	own := cloudcluster.CloudConfigVars{CCM: [][2]string{{"KubernetesClusterID", "prod"}}}
	kcm, ccm, id := configs(own, base, "c1")
	if id != "prod" || kcm.ClusterID != "prod" || kcm.Global != nil || ccm.ClusterID != "" || len(ccm.Global) != 1 {
		t.Errorf("tagged %q; kcm %+v; ccm %+v", id, kcm, ccm)
	}
	if _, _, id := configs(cloudcluster.CloudConfigVars{KCM: [][2]string{}}, base, "c1"); id != "c1" {
		t.Errorf("no file names a cluster, yet the cloud tags %q", id)
	}
}

// A node's kubelet key is its own: in the keys' file the cloud serves,
// naming the node, and written for that node alone.
func TestIssueKubeletKey(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	prepared(t)
	paths := map[string]string{}
	for _, node := range []string{"c1-worker", "c1-worker2"} {
		p, err := issueKubeletKey("c1", node)
		if err != nil {
			t.Fatal(err)
		}
		paths[node] = p
	}
	keys, err := amazon.ReadKeys(filepath.Join(stateDir("c1"), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	for node, p := range paths {
		raw, err := os.ReadFile(p)
		if fi, _ := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s's kubelet env: %v", node, err)
		}
		var owner awsapi.Key
		for id, k := range keys {
			if strings.Contains(string(raw), "AWS_ACCESS_KEY_ID="+id+"\n") {
				owner = k
			}
		}
		if owner.Principal != "kubelet" || owner.Node != node {
			t.Errorf("%s's kubelet env holds the key of %q on %q", node, owner.Principal, owner.Node)
		}
	}
	if paths["c1-worker"] == paths["c1-worker2"] {
		t.Error("two nodes share a kubelet env")
	}
	for _, bad := range []string{"", "../c2", "a/b", ".hidden"} {
		if _, err := issueKubeletKey("c1", bad); err == nil {
			t.Errorf("a node named %q got a key", bad)
		}
	}
}

// Each side's IAM policy is written beside the keys and the cloud holds
// that side's principal to it; a side the cloud has no component for is
// refused.
func TestAWSPoliciesReachTheCloud(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	doc := []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}}`)
	flags, err := prepare("c1", testEndpoints, cloudcluster.CloudConfigVars{}, map[string][]byte{"ccm": doc, "kubelet": doc})
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for i, f := range flags {
		if f == "--aws-iam-policy" {
			held = append(held, flags[i+1])
		}
	}
	want := []string{"cloud-controller-manager=" + filepath.Join(stateDir("c1"), "policy-ccm.json"), "kubelet=" + filepath.Join(stateDir("c1"), "policy-kubelet.json")}
	if !slices.Equal(held, want) {
		t.Fatalf("the cloud's policies %v, want %v", held, want)
	}
	ps, err := readPolicies(held)
	if err != nil || ps["kubelet"].Decide("ec2:CreateRoute").Allowed || !ps["cloud-controller-manager"].Decide("ec2:DescribeSubnets").Allowed {
		t.Errorf("read back: %v, %v", ps, err)
	}
	if _, err := prepare("c1", testEndpoints, cloudcluster.CloudConfigVars{}, map[string][]byte{"etcd": doc}); err == nil {
		t.Error("a policy for no component accepted")
	}
}

// A network shaped with further route tables reaches the cloud's flags;
// a fresh one adds none.
func TestShapeFlags(t *testing.T) {
	if got := shapeFlags(cloudcluster.NetworkShape{RouteTables: 2}); !slices.Equal(got, []string{"--aws-route-tables", "2"}) {
		t.Errorf("two tables: %v", got)
	}
	for _, n := range []int{0, 1} {
		if got := shapeFlags(cloudcluster.NetworkShape{RouteTables: n}); got != nil {
			t.Errorf("%d table(s): %v", n, got)
		}
	}
	if got := shapeFlags(cloudcluster.NetworkShape{DHCPDomain: "corp.example"}); !slices.Equal(got, []string{"--aws-dhcp-domain", "corp.example"}) {
		t.Errorf("a DHCP domain: %v", got)
	}
}
