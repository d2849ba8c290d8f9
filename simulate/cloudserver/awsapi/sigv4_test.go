package awsapi

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// do sends req and returns its status and what the server recorded.
func (ts *testServer) do(t *testing.T, req *http.Request) (int, Record) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, ts.last()
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// swapBody replaces a signed request's body after signing, as a caller
// that captured it would.
func swapBody(req *http.Request, body string) {
	req.Body = io.NopCloser(strings.NewReader(body))
	req.ContentLength = int64(len(body))
}

// TestASwappedBodyIsRefused: a DescribeInstances signed by aws-sdk-go's
// signer, its body swapped for a TerminateInstances that claims the
// signed body's hash in an (unsigned) X-Amz-Content-Sha256, is refused
// with 403 and terminates nothing.
func TestASwappedBodyIsRefused(t *testing.T) {
	ts := newTestServer(t)
	describe := "Action=DescribeInstances&Version=2016-11-15"
	req := signed(t, "POST", ts.URL+"/ec2/", describe, testKey, time.Now())
	swapBody(req, "Action=TerminateInstances&Version=2016-11-15&InstanceId.1=i-0123")
	req.Header.Set("X-Amz-Content-Sha256", sha256Hex(describe))
	status, rec := ts.do(t, req)
	if status != http.StatusForbidden || rec.Code != "SignatureDoesNotMatch" {
		t.Errorf("a swapped body: %d %+v", status, rec)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.terminated) != 0 {
		t.Errorf("terminated %v", ts.terminated)
	}
}

// TestThePayloadHashHeader: a header naming the body's own hash (signed
// or not) is accepted; UNSIGNED-PAYLOAD, S3's, is refused even signed.
func TestThePayloadHashHeader(t *testing.T) {
	ts := newTestServer(t)
	body := "Action=DescribeInstances&Version=2016-11-15"
	cases := []struct {
		name, header string
		signIt       bool
		status       int
	}{
		{"the body's hash, signed", sha256Hex(body), true, http.StatusOK},
		{"the body's hash, unsigned", sha256Hex(body), false, http.StatusOK},
		{"UNSIGNED-PAYLOAD, signed", "UNSIGNED-PAYLOAD", true, http.StatusForbidden},
		{"another body's hash, signed", sha256Hex("Action=TerminateInstances"), true, http.StatusForbidden},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var req *http.Request
			if c.signIt {
				req = signedWith(t, ts.URL+"/ec2/", body, "X-Amz-Content-Sha256", c.header)
			} else {
				req = signed(t, "POST", ts.URL+"/ec2/", body, testKey, time.Now())
				req.Header.Set("X-Amz-Content-Sha256", c.header)
			}
			if status, rec := ts.do(t, req); status != c.status {
				t.Errorf("status %d (%+v)", status, rec)
			}
		})
	}
}

// signedWith signs body with a header set beforehand: aws-sdk-go's
// signer signs every X-Amz-* header and takes X-Amz-Content-Sha256, when
// set, as the payload's hash.
func signedWith(t *testing.T, url, body, name, value string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	req.Header.Set(name, value)
	return sign(t, req, body, testKey, time.Now())
}

// TestTheBodyIsBounded: a body over MaxBody is refused before it is
// hashed.
func TestTheBodyIsBounded(t *testing.T) {
	ts := newTestServer(t)
	body := "Action=DescribeInstances&Pad=" + strings.Repeat("a", MaxBody)
	status, rec := ts.do(t, signed(t, "POST", ts.URL+"/ec2/", body, testKey, time.Now()))
	if status != http.StatusBadRequest || rec.Code != "InvalidRequest" {
		t.Errorf("a body over %d bytes: %d %+v", MaxBody, status, rec)
	}
}
