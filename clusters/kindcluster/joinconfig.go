package kindcluster

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	pathpkg "path"
	"sort"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"

	"github.com/handover-sh/handover/clusters/nodeaccess"
)

// controlPlaneCerts are the shared secrets a joining control plane needs
// (the same set kind copies between its control planes).
var controlPlaneCerts = []string{
	"/etc/kubernetes/pki/ca.crt", "/etc/kubernetes/pki/ca.key",
	"/etc/kubernetes/pki/front-proxy-ca.crt", "/etc/kubernetes/pki/front-proxy-ca.key",
	"/etc/kubernetes/pki/sa.pub", "/etc/kubernetes/pki/sa.key",
	"/etc/kubernetes/pki/etcd/ca.crt", "/etc/kubernetes/pki/etcd/ca.key",
}

func (c *Cluster) copyControlPlaneCerts(ctx context.Context, from, to nodes.Node) error {
	for _, f := range controlPlaneCerts {
		data, err := c.ReadFile(ctx, from.String(), f)
		if err == nil {
			err = c.writeFile(ctx, to, f, data)
		}
		if err != nil {
			return fmt.Errorf("copying %s from %s: %w", f, from, err)
		}
	}
	return nil
}

// joinData fills the kubeadm JoinConfiguration.
type joinData struct {
	Endpoint, Token, CAHash string
	// Address is the node's own (a control plane advertises it); NodeIP
	// the kubelet's --node-ip ("" where the cluster's kubelets have none).
	Address, NodeIP string
	// Name is nodeRegistration.name ("" = kubeadm's default, the hostname).
	Name         string
	ControlPlane bool
	// KubeletArgs are the kubelet flags the new node shares with the
	// cluster's existing nodes (provider-id, cloud-provider, cloud-config).
	KubeletArgs map[string]string
	// Patches says the join has kubeadm patches in patchDir.
	Patches bool
}

// sharedKubeletFlags are kubelet flags a joining node takes over from the
// cluster's nodes, so it runs in the same cloud mode.
var sharedKubeletFlags = []string{"provider-id", "cloud-provider", "cloud-config"}

// donorKubelet is what a joining node takes over from a node's
// kubeadm-flags.env: the shared flags (provider-id rewritten for the new
// node when the donor has one); pinned, whether the donor's kubelet is given
// its node IP (kind's always are; a cluster made without, as cluster-api's
// AWS templates make them, leaves --node-ip empty); byMetadata, whether it
// runs under a name other than its container's, so the new node takes its
// name as it did, from the instance metadata.
func (c *Cluster) donorKubelet(ctx context.Context, donor nodes.Node, node string) (args map[string]string, pinned, byMetadata bool, err error) {
	env, err := c.ReadFile(ctx, donor.String(), kubeletFlagsFile)
	if err != nil {
		return nil, false, false, err
	}
	return kubeletArgsFrom(env, c.Name, node), pinsNodeIP(env), HostnameOverride(env) != "", nil
}

// pinsNodeIP says whether kubeadm's kubelet flags give a node IP.
func pinsNodeIP(env string) bool {
	v, _ := kubeadmFlag(env, "node-ip")
	return v != ""
}

func kubeletArgsFrom(env, cluster, node string) map[string]string {
	out := map[string]string{}
	for _, f := range kubeadmFlags(env) {
		k, v, ok := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if !ok {
			continue
		}
		for _, shared := range sharedKubeletFlags {
			if k == shared && v != "" {
				out[k] = v
			}
		}
	}
	if _, ok := out["provider-id"]; ok {
		out["provider-id"] = "kind://docker/" + cluster + "/" + node
	}
	return out
}

// joinConfig creates a short-lived bootstrap token on donor and renders the
// JoinConfiguration the new node uses, pinned to the cluster CA.
func (c *Cluster) joinConfig(ctx context.Context, donor, n nodes.Node, o AddNodeOptions) (string, error) {
	endpoint, err := c.internalEndpoint()
	if err != nil {
		return "", err
	}
	token, err := run(ctx, donor, "kubeadm", "token", "create", "--ttl", "15m")
	if err != nil {
		return "", err
	}
	caPEM, err := c.ReadFile(ctx, donor.String(), "/etc/kubernetes/pki/ca.crt")
	if err != nil {
		return "", err
	}
	hash, err := caCertHash([]byte(caPEM))
	if err != nil {
		return "", err
	}
	ip, _, err := n.IP()
	if err != nil {
		return "", err
	}
	args, pinned, byMetadata, err := c.donorKubelet(ctx, donor, n.String())
	if err != nil {
		return "", err
	}
	nodeIP := ip
	if !pinned {
		nodeIP = ""
	}
	for k, v := range o.KubeletArgs {
		if v == "" {
			delete(args, k)
		} else {
			args[k] = v
		}
	}
	d := joinData{Endpoint: endpoint, Token: token, CAHash: hash, Address: ip, NodeIP: nodeIP,
		KubeletArgs: args, ControlPlane: o.Role == RoleControlPlane, Patches: len(o.Patches) > 0}
	if byMetadata && !o.ByHostname {
		d.Name = NodeNameFromMetadata
	}
	return renderJoinConfig(d), nil
}

// caCertHash is kubeadm's discovery hash: SHA-256 of the CA's public key info.
func caCertHash(caPEM []byte) (string, error) {
	block, _ := pem.Decode(caPEM)
	if block == nil {
		return "", fmt.Errorf("cluster CA is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return "", fmt.Errorf("parsing cluster CA: %w", err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// renderJoinConfig writes kubeadm's v1beta3 JoinConfiguration, which the
// kubeadm of every version handover ships accepts. The kubelet arguments
// match the ones kind gives the nodes it creates.
func renderJoinConfig(d joinData) string {
	var b strings.Builder
	b.WriteString(`apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
nodeRegistration:
  criSocket: unix:///run/containerd/containerd.sock
`)
	if d.Name != "" {
		fmt.Fprintf(&b, "  name: %q\n", d.Name)
	}
	fmt.Fprintf(&b, `  kubeletExtraArgs:
    node-ip: %q
    node-labels: ""
`, d.NodeIP)
	keys := make([]string, 0, len(d.KubeletArgs))
	for k := range d.KubeletArgs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "    %s: %q\n", k, d.KubeletArgs[k])
	}
	fmt.Fprintf(&b, `discovery:
  bootstrapToken:
    apiServerEndpoint: %q
    token: %q
    caCertHashes:
    - %q
`, d.Endpoint, d.Token, d.CAHash)
	if d.Patches {
		fmt.Fprintf(&b, "patches:\n  directory: %s\n", patchDir)
	}
	if d.ControlPlane {
		fmt.Fprintf(&b, "controlPlane:\n  localAPIEndpoint:\n    advertiseAddress: %q\n    bindPort: 6443\n", d.Address)
	}
	return b.String()
}

// patchDir holds the kubeadm patches of a join.
const patchDir = "/kind/patches"

// writeFiles writes files (relative names under dir, or absolute paths when
// dir is "") into a node, in a stable order.
func (c *Cluster) writeFiles(ctx context.Context, n nodes.Node, dir string, files map[string]string) error {
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		if err := c.writeFile(ctx, n, p, files[name]); err != nil {
			return err
		}
	}
	return nil
}

// writeFile replaces a file of a node in one rename, so a kubelet or
// balancer watching its directory never reads half of it: through the
// node's root file system from the host (no process in the node), else
// with commands in the node where that root is out of reach. Files are
// 0600, as kubeadm writes its own and as copying from a pipe made them:
// kubeconfigs, the join's token and private keys are among them, and every
// reader in a node runs as root.
func (c *Cluster) writeFile(ctx context.Context, n nodes.Node, path, content string) error {
	if path == kubeletFlagsFile {
		defer c.names.stale(n.String())
	}
	if pid, err := c.PID(ctx, n.String()); err == nil {
		err := nodeaccess.WriteFile(pid, path, []byte(content), 0o600)
		if !errors.Is(err, nodeaccess.ErrNoRoot) {
			if err != nil {
				return fmt.Errorf("on %s: %w", n, err)
			}
			return nil
		}
	}
	dir, base := pathpkg.Split(path)
	tmp := dir + ".handover-" + base + "." + strconv.FormatInt(time.Now().UnixNano(), 36) // hidden: a kubelet skips it in its manifests
	if err := nodeutils.WriteFile(n, tmp, content); err != nil {
		return fmt.Errorf("writing %s on %s: %w", tmp, n, err)
	}
	if _, err := run(ctx, n, "mv", "-fT", tmp, path); err != nil {
		_, _ = run(context.WithoutCancel(ctx), n, "rm", "-f", tmp)
		return err
	}
	return nil
}
