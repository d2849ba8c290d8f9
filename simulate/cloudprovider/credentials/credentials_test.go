package credentials

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// A source reads the registry and the cloud from the configuration, sends
// the cloud's token, matches only the registry's images, and keeps a token
// until shortly before it lapses.
func TestSource(t *testing.T) {
	calls := 0
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cloud := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/registry/token" || r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "{}", http.StatusUnauthorized)
			return
		}
		calls++
		_ = json.NewEncoder(w).Encode(api.RegistryToken{Registry: "reg.example", Username: "simcloud", Password: "p", ExpiresAt: now.Add(time.Hour)})
	}))
	defer cloud.Close()
	path := filepath.Join(t.TempDir(), "cloud-config.json")
	_ = os.WriteFile(path, []byte(`{"url":"`+cloud.URL+`","token":"tok","registry":"reg.example"}`), 0o600)
	s, err := Load(path, "kubelet")
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return now }
	for image, want := range map[string]bool{"reg.example/handover/echo:v1": true, "REG.example/x": true, "docker.io/reg.example/x": false, "reg.example": false} {
		if s.Matches(image) != want {
			t.Errorf("Matches(%q) = %v", image, !want)
		}
	}
	for range 2 {
		if tok, err := s.Token(context.Background()); err != nil || tok.Password != "p" {
			t.Fatalf("%+v, %v", tok, err)
		}
	}
	if calls != 1 {
		t.Errorf("%d calls for two tokens within the hour, want 1", calls)
	}
	now = now.Add(time.Hour - RenewBefore)
	if _, err := s.Token(context.Background()); err != nil || calls != 2 {
		t.Errorf("a token about to lapse was not renewed: %d calls, %v", calls, err)
	}
	_ = os.WriteFile(path, []byte(`{"url":"`+cloud.URL+`","token":"tok"}`), 0o600)
	if _, err := Load(path, "kubelet"); err == nil {
		t.Error("a configuration without a registry loaded")
	}
}
