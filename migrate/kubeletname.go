package migrate

import (
	"context"
	"fmt"
	"strings"

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
	pem, err := e.issueNodeCredential(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("node %s: a credential for the Node name %s: %w", node, host, err)
	}
	path := kubeletPKI + "kubelet-client-" + host + ".pem"
	if err := e.Cluster.WriteFile(ctx, node, path, pem); err != nil {
		return nil, err
	}
	if _, err := e.Cluster.Exec(ctx, node, "ln", "-sf", path, kubeletClientCert); err != nil {
		return nil, err
	}
	return removeFlag(args, "hostname-override"), nil
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
	script := `umask 077; kubeadm kubeconfig user --config /kind/kubeadm.conf --client-name "$1" --org system:nodes > "$2"`
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
