// Package pki issues certificates: those of a simulated cloud's TLS
// services, from one certificate authority per cluster made when the
// cluster is, whose certificate its nodes trust for those services only;
// and client certificates from a cluster's own CA (kubeadm's), as kubeadm
// issues them.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// lifetime covers any rehearsal and a cluster kept for days after it.
const lifetime = 90 * 24 * time.Hour

// CA is a certificate authority: its certificate and key.
type CA struct {
	cert *x509.Certificate
	key  crypto.Signer
	// CertPEM is the certificate clients are given to trust.
	CertPEM []byte
}

// NewCA makes a self-signed authority that may only issue server
// certificates (no intermediates) for names (and their subdomains) and
// ips: a client that trusts it for one service trusts nothing else
// it could sign, its key kept or not.
func NewCA(commonName string, names []string, ips []net.IP) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making a CA key: %w", err)
	}
	tmpl, err := template(commonName)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.MaxPathLenZero = true, true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	tmpl.PermittedDNSDomainsCritical, tmpl.PermittedDNSDomains = len(names)+len(ips) > 0, names
	for _, ip := range ips {
		bits := 8 * len(ip.To16())
		if v4 := ip.To4(); v4 != nil {
			ip, bits = v4, 32
		}
		tmpl.PermittedIPRanges = append(tmpl.PermittedIPRanges, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("self-signing the CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Issue makes a server certificate for names and addresses; it returns
// the certificate and its key, PEM-encoded.
func (ca *CA) Issue(names []string, ips []net.IP) (certPEM, keyPEM []byte, err error) {
	if len(names) == 0 && len(ips) == 0 {
		return nil, nil, fmt.Errorf("a server certificate needs a name or an address")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("making a server key: %w", err)
	}
	cn := ""
	if len(names) > 0 {
		cn = names[0]
	}
	tmpl, err := template(cn)
	if err != nil {
		return nil, nil, err
	}
	tmpl.DNSNames, tmpl.IPAddresses = names, ips
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	return ca.sign(tmpl, key)
}

// LoadCA reads an existing authority (kubeadm's ca.crt and ca.key).
func LoadCA(certPEM, keyPEM []byte) (*CA, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("parsing the CA: %w", err)
	}
	key, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("the CA's key cannot sign")
	}
	return &CA{cert: cert, key: key, CertPEM: certPEM}, nil
}

// IssueClient makes a client certificate for user (its CommonName, as
// Kubernetes reads a user), valid as long as the CA.
func (ca *CA) IssueClient(user string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("making a client key: %w", err)
	}
	tmpl, err := template(user)
	if err != nil {
		return nil, nil, err
	}
	tmpl.NotAfter = ca.cert.NotAfter
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return ca.sign(tmpl, key)
}

// sign issues tmpl for key, PEM-encoded with it.
func (ca *CA) sign(tmpl *x509.Certificate, key *ecdsa.PrivateKey) (certPEM, keyPEM []byte, err error) {
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("issuing a certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

func template(commonName string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: commonName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(lifetime)}, nil
}
