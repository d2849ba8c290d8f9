package cloudcluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
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
	certPEM, keyPEM, err := clientCert(CCMUser, caCert, caKey)
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

func clientCert(user string, caCertPEM, caKeyPEM []byte) (certPEM, keyPEM []byte, err error) {
	ca, err := tls.X509KeyPair(caCertPEM, caKeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("reading cluster CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(ca.Certificate[0])
	if err != nil {
		return nil, nil, fmt.Errorf("parsing cluster CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: user},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     caCert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing %s certificate: %w", user, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
