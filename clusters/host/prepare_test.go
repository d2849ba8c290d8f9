package host

import "testing"

func TestMergeDaemonConfigKeepsOtherKeys(t *testing.T) {
	cfg := map[string]any{"log-driver": "json-file", "runtimes": map[string]any{"nvidia": map[string]any{"path": "x"}}}
	if !MergeDaemonConfig(cfg, "/w") {
		t.Fatal("first merge must change the config")
	}
	if cfg["log-driver"] != "json-file" || cfg["default-runtime"] != WrapperName {
		t.Fatalf("unexpected config %v", cfg)
	}
	rt := cfg["runtimes"].(map[string]any)
	if rt["nvidia"] == nil || rt[WrapperName].(map[string]any)["path"] != "/w" {
		t.Fatalf("runtimes not merged: %v", rt)
	}
	if MergeDaemonConfig(cfg, "/w") {
		t.Fatal("second merge must be a no-op")
	}
	if !MergeDaemonConfig(cfg, "/other") {
		t.Fatal("a moved wrapper must update the config")
	}
}
