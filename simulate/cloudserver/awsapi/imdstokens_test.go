package awsapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// putToken asks m for a token from addr with ttl seconds.
func putToken(m *IMDS, addr string, ttl int) (int, string) {
	req := httptest.NewRequest("PUT", "/latest/api/token", nil)
	req.RemoteAddr = addr
	req.Header.Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", fmt.Sprint(ttl))
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

func getWith(m *IMDS, addr, token string) int {
	req := httptest.NewRequest("GET", "/latest/meta-data/instance-id", nil)
	req.RemoteAddr = addr
	req.Header.Set("X-Aws-Ec2-Metadata-Token", token)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	return rec.Code
}

// TestIMDSTokensAreBoundedPerInstance: an instance past its bound of live
// tokens is throttled (429) while another still gets its own, and the
// bound frees as tokens expire.
func TestIMDSTokensAreBoundedPerInstance(t *testing.T) {
	now := time.Unix(1.7e9, 0)
	m := &IMDS{RequireToken: true, Now: func() time.Time { return now },
		Lookup: func(string) (Instance, bool, error) { return testInstance, true, nil }}
	greedy, other := "192.0.2.1:1", "192.0.2.2:1"
	var first string
	for i := range maxTokensPerInstance {
		code, token := putToken(m, greedy, 60+i)
		if code != http.StatusOK {
			t.Fatalf("token %d: %d", i, code)
		}
		if i == 0 {
			first = token
		}
	}
	if code, _ := putToken(m, greedy, 60); code != http.StatusTooManyRequests {
		t.Errorf("a token past the bound: %d", code)
	}
	if code := getWith(m, greedy, first); code != http.StatusOK {
		t.Errorf("a live token while throttled: %d", code)
	}
	code, token := putToken(m, other, 60)
	if code != http.StatusOK || getWith(m, other, token) != http.StatusOK {
		t.Errorf("another instance's token: %d", code)
	}
	now = now.Add(61 * time.Second) // the first token expires
	if code := getWith(m, greedy, first); code != http.StatusUnauthorized {
		t.Errorf("an expired token: %d", code)
	}
	if code, _ := putToken(m, greedy, 60); code != http.StatusOK {
		t.Errorf("a token once one expired: %d", code)
	}
}

// TestIMDSTokenTableDoesNotScan: issuing n tokens, none expired, looks at
// one lease an issue (the soonest to expire), not at every live one; the
// expired ones are swept and forgotten.
func TestIMDSTokenTableDoesNotScan(t *testing.T) {
	now := time.Unix(1.7e9, 0)
	tt := newTokenTable()
	const n = 20000
	for i := range n {
		ip := fmt.Sprintf("10.0.%d.%d", i/250, i%250)
		ttl := 100 * time.Second // the even ones expire at 300 s, the odd ones live
		if i%2 == 1 {
			ttl = time.Hour
		}
		if !tt.issue(fmt.Sprint(i), ip, now, now.Add(ttl)) {
			t.Fatalf("issue %d refused", i)
		}
	}
	if tt.swept > n {
		t.Errorf("%d issues looked at %d leases: a scan", n, tt.swept)
	}
	tt.swept = 0
	now = now.Add(300 * time.Second)
	tt.sweep(now)
	if want := n / 2; tt.len() != want || tt.swept > n/2+1 {
		t.Errorf("after half expired: %d live (want %d), %d looked at", tt.len(), want, tt.swept)
	}
	if tt.valid("0", "10.0.0.0", now) || !tt.valid(fmt.Sprint(n-1), fmt.Sprintf("10.0.%d.%d", (n-1)/250, (n-1)%250), now) {
		t.Error("an expired token valid, or a live one not")
	}
}

// BenchmarkIMDSTokenIssue: a token request against a table of 40 000 live
// tokens (the count that took the scanning table 15.6 s).
func BenchmarkIMDSTokenIssue(b *testing.B) {
	now := time.Unix(1.7e9, 0)
	tt := newTokenTable()
	for i := range 40000 {
		tt.issue(fmt.Sprint("live", i), fmt.Sprint("10.1.", i%100), now, now.Add(time.Hour))
	}
	b.ResetTimer()
	for i := range b.N {
		now = now.Add(time.Millisecond)
		tt.issue(fmt.Sprint(i), fmt.Sprint("10.2.", i%100), now, now.Add(time.Second))
	}
}
