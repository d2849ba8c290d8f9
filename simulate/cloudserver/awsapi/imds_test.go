package awsapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/ec2metadata"
	"github.com/aws/aws-sdk-go/aws/session"
)

var testInstance = Instance{ID: "i-0a1b2c3d4e5f60718", Type: "m5.large", Zone: "sim-region-1a", Region: "sim-region-1",
	PrivateIP: "172.18.0.3", PrivateDNS: "ip-172-18-0-3.sim-region-1.compute.internal", MAC: "02:42:ac:12:00:03",
	VPC: "vpc-0handover", Subnet: "subnet-0a", Account: "000000000000", Image: "ami-0kind", Launched: time.Unix(1.7e9, 0)}

func newIMDS(t *testing.T, requireToken bool) (*ec2metadata.EC2Metadata, *IMDS) {
	t.Helper()
	m := &IMDS{RequireToken: requireToken, Lookup: func(ip string) (Instance, bool, error) { return testInstance, ip == "127.0.0.1", nil }}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	sess := session.Must(session.NewSession(&aws.Config{MaxRetries: aws.Int(0)}))
	return ec2metadata.New(sess, &aws.Config{Endpoint: aws.String(srv.URL)}), m
}

// TestIMDSAnswersWhatTheProvidersRead: aws-sdk-go's metadata client, as the
// providers use it, reads each path they read (and Region from the
// identity document).
func TestIMDSAnswersWhatTheProvidersRead(t *testing.T) {
	for _, requireToken := range []bool{false, true} {
		client, _ := newIMDS(t, requireToken)
		want := map[string]string{
			"instance-id":                 testInstance.ID,
			"placement/availability-zone": testInstance.Zone,
			"local-hostname":              testInstance.PrivateDNS,
			"network/interfaces/macs/":    testInstance.MAC + "/",
			"network/interfaces/macs/" + testInstance.MAC + "/device-number": "0",
			"network/interfaces/macs/" + testInstance.MAC + "/local-ipv4s":   testInstance.PrivateIP,
			"network/interfaces/macs/" + testInstance.MAC + "/vpc-id":        testInstance.VPC,
		}
		for path, value := range want {
			got, err := client.GetMetadata(path)
			if err != nil || got != value {
				t.Errorf("token required %v: %s = %q, %v; want %q", requireToken, path, got, err, value)
			}
		}
		for _, absent := range []string{"public-ipv4", "public-hostname"} {
			if got, err := client.GetMetadata(absent); err == nil {
				t.Errorf("%s = %q: a private instance has none (404)", absent, got)
			}
		}
		if region, err := client.Region(); err != nil || region != testInstance.Region {
			t.Errorf("Region() = %q, %v", region, err)
		}
	}
}

func TestIMDSRefusesStrangersAndBadTokens(t *testing.T) {
	m := &IMDS{RequireToken: true, Lookup: func(string) (Instance, bool, error) { return Instance{}, false, nil }}
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/latest/meta-data/instance-id", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("an address no instance has: %d", rec.Code)
	}
	m.Lookup = func(string) (Instance, bool, error) { return Instance{}, false, errors.New("the cloud is down") }
	rec = httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/latest/meta-data/instance-id", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("the cloud unreachable: %d (a 404 would tell the instance it does not exist)", rec.Code)
	}
	m.Lookup = func(string) (Instance, bool, error) { return testInstance, true, nil }
	for name, header := range map[string]string{"no token": "", "a token never issued": "forged"} {
		req := httptest.NewRequest("GET", "/latest/meta-data/instance-id", nil)
		if header != "" {
			req.Header.Set("X-Aws-Ec2-Metadata-Token", header)
		}
		rec := httptest.NewRecorder()
		m.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("%s: %d", name, rec.Code)
		}
	}
	// A token is bound to the instance it was issued to.
	put := httptest.NewRequest("PUT", "/latest/api/token", nil)
	put.Header.Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", "60")
	rec = httptest.NewRecorder()
	m.ServeHTTP(rec, put)
	token := strings.TrimSpace(rec.Body.String())
	get := httptest.NewRequest("GET", "/latest/meta-data/instance-id", nil)
	get.RemoteAddr = "192.0.2.9:1234"
	get.Header.Set("X-Aws-Ec2-Metadata-Token", token)
	rec = httptest.NewRecorder()
	m.ServeHTTP(rec, get)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("another instance's token: %d", rec.Code)
	}
}
