package main

import (
	"strings"
	"testing"
)

// The simulated cloud listens on loopback and the kind network's gateway
// only: an address that means every interface is refused, by flag, before
// anything is read or served.
func TestSimcloudServeRefusesUnspecifiedAddresses(t *testing.T) {
	cfg := writeTemp(t, "cloud-config.json", `{"url":"http://127.0.0.1:1","token":"0123456789abcdef0123456789abcdef"}`)
	admin := writeTemp(t, "admin-token", "0123456789abcdef0123456789abcdef-admin")
	serve := []string{"simcloud", "serve", "--cloud-config", cfg, "--admin-token-file", admin, "--pod-network", "10.244.0.0/16", "--state-dir", t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:8080"}, `--listen "0.0.0.0:8080": 0.0.0.0 is every interface of the host`},
		{[]string{"--listen", "[::]:8080"}, `--listen "[::]:8080": :: is every interface`},
		{[]string{"--listen", "[::ffff:0.0.0.0]:8080"}, "is every interface"},
		{[]string{"--listen", ":8080"}, `--listen ":8080": no address, so every interface`},
		{[]string{"--listen", "127.0.0.1:8080", "--listen", "localhost:8080"}, "localhost is not an IP address"},
		{[]string{"--listen", "127.0.0.1"}, "not IP:PORT"},
		{[]string{"--listen", "127.0.0.1:8080", "--aws-listen", "0.0.0.0:8081", "--aws-keys", cfg, "--node-network", "172.18.0.0/16"}, `--aws-listen "0.0.0.0:8081"`},
		{[]string{"--listen", "127.0.0.1:8080", "--aws-listen", "127.0.0.1:8081", "--aws-keys", cfg, "--node-network", "172.18.0.0/16", "--imds-listen", ":80"}, `--imds-listen ":80"`},
	} {
		err := runCLI(t, append(serve, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "give loopback (127.0.0.1:PORT) or the kind network's gateway") {
			t.Errorf("%v: err = %v, want %q and the addresses allowed", tc.args, err, tc.want)
		}
	}
	for _, ok := range []string{"127.0.0.1:8080", "[::1]:8080", "172.18.0.1:8080"} {
		if err := checkListen(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
}
