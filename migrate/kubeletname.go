package migrate

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	kubeletPKI        = "/var/lib/kubelet/pki/"
	kubeletClientCert = kubeletPKI + "kubelet-client-current.pem" // kubelet.conf's client certificate and key
	// issuedCredential is where a control plane's kubeadm writes a
	// kubeconfig it issues, for as long as it takes to read it.
	issuedCredential = "/etc/kubernetes/handover-issued-kubelet.conf"
)

// dropNodeName takes a switched kubelet's --hostname-override away, as a
// runbook's tool does when its option for the provider's name is left
// out: the kubelet then registers under its machine's hostname, with a
// credential for that name issued by the cluster's CA (RKE's node
// credentials are not bound to a name; a kubeadm kubelet's are, and would
// be refused the new Node by the NodeRestriction admission plugin).
func (e *Env) dropNodeName(ctx context.Context, node string, args []string) ([]string, error) {
	if _, ok := flagValue(args, "hostname-override"); !ok {
		return args, nil // already named by its hostname
	}
	host, err := e.Cluster.Exec(ctx, node, "hostname")
	if err != nil {
		return nil, err
	}
	host = strings.ToLower(strings.TrimSpace(host))
	if host == "" {
		return nil, fmt.Errorf("node %s has no hostname to register under", node)
	}
	if err := e.credentialFor(ctx, node, host); err != nil {
		return nil, err
	}
	return removeFlag(args, "hostname-override"), nil
}

// metadataNodeName sets a switched kubelet's --hostname-override to its
// instance metadata's hostname, as RKE's useInstanceMetadataHostname does
// ("will query ec2 metadata service and set /hostname as
// hostname-override for kubelet"): the name the in-tree provider gave the
// Node where the VPC's DHCP options are the region's, another where they
// name a domain of their own. A kubelet given another name registers it,
// with a credential for it (as dropNodeName).
func (e *Env) metadataNodeName(ctx context.Context, node string, args []string) ([]string, error) {
	out, err := e.Cluster.Exec(ctx, node, "sh", "-c", metadataHostname)
	if err != nil {
		return nil, fmt.Errorf("node %s: the instance metadata's hostname: %w", node, err)
	}
	name := strings.ToLower(strings.TrimSpace(out))
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("node %s: the instance metadata's hostname %q is no node name: %s", node, name, strings.Join(errs, "; "))
	}
	if cur, _ := flagValue(args, "hostname-override"); cur == name {
		return args, nil
	}
	if err := e.credentialFor(ctx, node, name); err != nil {
		return nil, err
	}
	return setFlag(args, "hostname-override", name), nil
}

// metadataHostname asks the instance metadata service for the hostname,
// with a session token (IMDSv2), as RKE's agent does on the node.
const metadataHostname = `set -eu
imds=http://169.254.169.254/latest
get="curl -fsS --retry 5 --retry-delay 1 --retry-all-errors --max-time 5"
token=$($get -X PUT -H 'X-aws-ec2-metadata-token-ttl-seconds: 60' "$imds/api/token" 2>/dev/null)
$get -H "X-aws-ec2-metadata-token: $token" "$imds/meta-data/hostname" 2>/dev/null`

// credentialFor gives a node's kubelet a client credential for the Node
// name it is to register under.
func (e *Env) credentialFor(ctx context.Context, node, name string) error {
	pem, err := e.issueNodeCredential(ctx, name)
	if err != nil {
		return fmt.Errorf("node %s: a credential for the Node name %s: %w", node, name, err)
	}
	path := kubeletPKI + "kubelet-client-" + name + ".pem"
	if err := e.Cluster.WriteFile(ctx, node, path, pem); err != nil {
		return err
	}
	_, err = e.Cluster.Exec(ctx, node, "ln", "-sf", path, kubeletClientCert)
	return err
}

// issueNodeCredential has a control plane's kubeadm issue a client
// certificate for system:node:<name>, returned as the PEM certificate and
// key a kubelet's kubelet-client-current.pem holds.
func (e *Env) issueNodeCredential(ctx context.Context, name string) (string, error) {
	cps, err := e.Cluster.ControlPlanes()
	if err != nil || len(cps) == 0 {
		return "", fmt.Errorf("no control plane to issue it: %v", err)
	}
	cp := cps[0].String()
	// A control plane that joined (one a version raise brought) holds a
	// JoinConfiguration only, which kubeadm kubeconfig refuses; its
	// defaults sign with the same CA, all the credential needs.
	script := `umask 077; cfg=; grep -qs '^kind: ClusterConfiguration' /kind/kubeadm.conf && cfg='--config /kind/kubeadm.conf'
kubeadm kubeconfig user $cfg --client-name "$1" --org system:nodes > "$2"`
	if _, err := e.Cluster.Exec(ctx, cp, "sh", "-c", script, "sh", "system:node:"+name, issuedCredential); err != nil {
		return "", err
	}
	defer func() { _ = e.Cluster.RemoveFile(context.WithoutCancel(ctx), cp, issuedCredential) }()
	out, err := e.Cluster.ReadFile(ctx, cp, issuedCredential)
	if err != nil {
		return "", err
	}
	cfg, err := clientcmd.Load([]byte(out))
	if err != nil {
		return "", fmt.Errorf("kubeadm's kubeconfig: %w", err)
	}
	u, ok := cfg.AuthInfos["system:node:"+name]
	if !ok || len(u.ClientCertificateData) == 0 || len(u.ClientKeyData) == 0 {
		return "", fmt.Errorf("kubeadm's kubeconfig has no client certificate for system:node:%s", name)
	}
	return string(u.ClientCertificateData) + string(u.ClientKeyData), nil
}
