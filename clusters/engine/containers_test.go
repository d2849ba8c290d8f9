package engine

import (
	"testing"

	"github.com/docker/docker/api/types/container"
)

// A node's spec must come out as `docker run` makes it from kind's flags:
// --privileged --security-opt seccomp=unconfined --security-opt
// apparmor=unconfined --cgroupns=private --init=false --restart=on-failure:1
// --tmpfs /tmp --volume /var --net kind --tty.
func TestRunSpecAsKindRunsNodes(t *testing.T) {
	cfg, host, net := RunSpec{Name: "c-worker", Image: "img", Hostname: "c-worker", Network: "kind",
		Privileged: true, Tty: true, RestartRetries: 1, Tmpfs: []string{"/tmp", "/run"},
		Volumes: []string{"/var"}, Binds: []string{"/lib/modules:/lib/modules:ro"},
		Labels: map[string]string{"role": "worker"}}.configs()
	if !cfg.Tty || cfg.Hostname != "c-worker" || cfg.Image != "img" || cfg.Labels["role"] != "worker" {
		t.Errorf("config = %+v", cfg)
	}
	if _, ok := cfg.Volumes["/var"]; !ok {
		t.Errorf("no anonymous /var volume: %v", cfg.Volumes)
	}
	if !host.Privileged || host.CgroupnsMode != container.CgroupnsModePrivate || host.Init == nil || *host.Init {
		t.Errorf("host config = %+v", host)
	}
	if len(host.SecurityOpt) != 2 || host.SecurityOpt[0] != "seccomp=unconfined" || host.SecurityOpt[1] != "apparmor=unconfined" {
		t.Errorf("security options = %v", host.SecurityOpt)
	}
	if host.RestartPolicy.Name != container.RestartPolicyOnFailure || host.RestartPolicy.MaximumRetryCount != 1 {
		t.Errorf("restart policy = %+v", host.RestartPolicy)
	}
	if _, ok := host.Tmpfs["/run"]; !ok || len(host.Tmpfs) != 2 {
		t.Errorf("tmpfs = %v", host.Tmpfs)
	}
	if host.NetworkMode != "kind" || net == nil || net.EndpointsConfig["kind"] == nil {
		t.Errorf("network = %q, %+v", host.NetworkMode, net)
	}
}

// A container on no network gets no endpoint, and an unprivileged one keeps
// the engine's default confinement and restart policy.
func TestRunSpecPlain(t *testing.T) {
	_, host, net := RunSpec{Name: "x", Image: "img", Network: "none"}.configs()
	if net != nil || host.Privileged || len(host.SecurityOpt) != 0 || host.RestartPolicy.Name != "" {
		t.Errorf("host = %+v, net = %+v", host, net)
	}
}
