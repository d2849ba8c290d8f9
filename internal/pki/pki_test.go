package pki

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"
	"time"
)

// A certificate the CA issued verifies for its names and addresses only,
// and the CA cannot be used to verify a chain through another CA.
func TestIssue(t *testing.T) {
	ca, err := NewCA("handover c1", []string{"api.ecr.sim-region-1.amazonaws.com"}, []net.IP{net.ParseIP("172.18.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue([]string{"api.ecr.sim-region-1.amazonaws.com"}, []net.IP{net.ParseIP("172.18.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(pair.Certificate[0])
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	for _, name := range []string{"api.ecr.sim-region-1.amazonaws.com", "172.18.0.1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "ec2.amazonaws.com"}); err == nil {
		t.Error("verifies for a name it was not issued for")
	}
	// Whatever it signs outside its names does not verify.
	outside, outsideKey, err := ca.Issue([]string{"ec2.amazonaws.com"}, []net.IP{net.ParseIP("10.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	op, _ := tls.X509KeyPair(outside, outsideKey)
	ol, _ := x509.ParseCertificate(op.Certificate[0])
	for _, name := range []string{"ec2.amazonaws.com", "10.0.0.1"} {
		if _, err := ol.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err == nil {
			t.Errorf("a certificate for %s outside the CA's names verifies", name)
		}
	}
	other, _ := NewCA("another", nil, nil)
	others := x509.NewCertPool()
	others.AppendCertsFromPEM(other.CertPEM)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: others, DNSName: "api.ecr.sim-region-1.amazonaws.com"}); err == nil {
		t.Error("verifies under another CA")
	}
	if _, _, err := ca.Issue(nil, nil); err == nil {
		t.Error("issued a certificate for nothing")
	}
}

// A cluster's own CA (kubeadm's: RSA, PKCS #1) issues a client
// certificate for a user that verifies as a client of that CA, for as
// long as the CA.
func TestIssueClientFromAClustersCA(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, _ := template("kubernetes")
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	ca, err := LoadCA(caPEM, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	if err != nil {
		t.Fatal(err)
	}
	certPEM, _, err := ca.IssueClient("cloud-controller-manager")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(certPEM)
	leaf, _ := x509.ParseCertificate(b.Bytes)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the client certificate does not verify: %v", err)
	}
	if leaf.Subject.CommonName != "cloud-controller-manager" || !leaf.NotAfter.Equal(tmpl.NotAfter.Truncate(time.Second)) {
		t.Errorf("issued to %q until %s (the CA until %s)", leaf.Subject.CommonName, leaf.NotAfter, tmpl.NotAfter)
	}
	if _, err := LoadCA(caPEM, []byte("not a key")); err == nil {
		t.Error("a CA without its key loads")
	}
}
