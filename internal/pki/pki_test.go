package pki

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
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
