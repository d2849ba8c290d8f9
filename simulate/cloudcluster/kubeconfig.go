package cloudcluster

import (
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/handover-sh/handover/internal/pki"
)

// CCMKubeconfig turns a control plane's controller-manager.conf into the
// cloud-controller-manager's own kubeconfig: the cluster CA, a client
// certificate for CCMUser signed by it (as kubeadm issues them), and the
// node's own API server (https://127.0.0.1:6443, in kind's certificate
// SANs), as kubeadm points kube-controller-manager at its local one.
func CCMKubeconfig(controllerManagerConf, caCert, caKey []byte) (string, error) {
	cfg, err := clientcmd.Load(controllerManagerConf)
	if err != nil {
		return "", fmt.Errorf("reading controller-manager.conf: %w", err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil {
		return "", fmt.Errorf("controller-manager.conf has no current context")
	}
	ca, err := pki.LoadCA(caCert, caKey)
	if err != nil {
		return "", fmt.Errorf("the cluster's CA: %w", err)
	}
	certPEM, keyPEM, err := ca.IssueClient(CCMUser)
	if err != nil {
		return "", err
	}
	out := clientcmdapi.NewConfig()
	cluster := *cfg.Clusters[ctx.Cluster]
	cluster.Server = "https://127.0.0.1:6443"
	out.Clusters["kubernetes"] = &cluster
	out.AuthInfos[CCMUser] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	out.Contexts["default"] = &clientcmdapi.Context{Cluster: "kubernetes", AuthInfo: CCMUser}
	out.CurrentContext = "default"
	b, err := clientcmd.Write(*out)
	return string(b), err
}
