package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	"golang.org/x/sync/errgroup"
)

// RunSpec is what `docker run --detach` is given, as the engine's API
// takes it: the CLI's flags map one to one onto these fields.
type RunSpec struct {
	Name     string
	Image    string
	Hostname string
	Network  string // joined by name, as --net does
	// IPv4 is its address on Network, as --ip gives it ("" = the
	// network's allocator picks).
	IPv4 string
	// Aliases are further names of the container on Network, which its
	// embedded DNS answers for every container there.
	Aliases []string
	Labels  map[string]string
	Env     []string // KEY=VALUE
	Cmd     []string
	// Tmpfs mounts, anonymous Volumes and host Binds ("src:dst[:opts]").
	Tmpfs   []string
	Volumes []string
	Binds   []string
	// Privileged with seccomp and AppArmor unconfined, a private cgroup
	// namespace, a TTY: what a kind node needs to run systemd.
	Privileged bool
	Tty        bool
	// RestartRetries > 0 restarts the container on failure that many times.
	RestartRetries int
}

func (s RunSpec) configs() (*container.Config, *container.HostConfig, *network.NetworkingConfig) {
	cfg := &container.Config{Image: s.Image, Hostname: s.Hostname, Labels: s.Labels, Env: s.Env,
		Cmd: s.Cmd, Tty: s.Tty, Volumes: map[string]struct{}{}}
	for _, v := range s.Volumes {
		cfg.Volumes[v] = struct{}{}
	}
	noInit := false
	host := &container.HostConfig{Binds: s.Binds, Privileged: s.Privileged, Init: &noInit,
		NetworkMode: container.NetworkMode(s.Network), Tmpfs: map[string]string{}}
	for _, t := range s.Tmpfs {
		host.Tmpfs[t] = ""
	}
	if s.Privileged {
		host.SecurityOpt = []string{"seccomp=unconfined", "apparmor=unconfined"}
		host.CgroupnsMode = container.CgroupnsModePrivate
	}
	if s.RestartRetries > 0 {
		host.RestartPolicy = container.RestartPolicy{Name: container.RestartPolicyOnFailure, MaximumRetryCount: s.RestartRetries}
	}
	var net *network.NetworkingConfig
	if s.Network != "" && s.Network != "none" {
		ep := &network.EndpointSettings{Aliases: s.Aliases}
		if s.IPv4 != "" {
			ep.IPAMConfig = &network.EndpointIPAMConfig{IPv4Address: s.IPv4}
		}
		net = &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{s.Network: ep}}
	}
	return cfg, host, net
}

// Run creates and starts a container as `docker run --detach` does; a
// container created but not started is removed again.
func Run(ctx context.Context, s RunSpec) error {
	cli, err := own()
	if err != nil {
		return err
	}
	cfg, host, net := s.configs()
	created, err := cli.ContainerCreate(ctx, cfg, host, net, nil, s.Name)
	if err != nil {
		return fmt.Errorf("creating container %s from %s: %w", s.Name, s.Image, err)
	}
	if err := cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		_ = Remove(context.WithoutCancel(ctx), created.ID)
		return fmt.Errorf("starting container %s: %w", s.Name, err)
	}
	return nil
}

// Remove removes a container and its anonymous volumes, running or not,
// as `docker rm -f -v` does; a container already gone is not an error.
func Remove(ctx context.Context, name string) error {
	cli, err := own()
	if err != nil {
		return err
	}
	err = cli.ContainerRemove(ctx, name, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("removing container %s: %w", name, err)
	}
	return nil
}

// ImageExists says whether the engine holds the image ref.
func ImageExists(ctx context.Context, ref string) (bool, error) {
	cli, err := own()
	if err != nil {
		return false, err
	}
	if _, err := cli.ImageInspect(ctx, ref); err != nil {
		if IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("inspecting image %s: %w", ref, err)
	}
	return true, nil
}

// Pipe runs from and to together with from's stdout fed to to's stdin, as
// `docker exec A ... | docker exec -i B ...` does, without the processes.
func Pipe(ctx context.Context, from, to Exec) error {
	r, w := io.Pipe()
	from.Stdout, to.Stdin = w, r
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		err := from.Run(ctx)
		_ = w.CloseWithError(err)
		if err != nil {
			return fmt.Errorf("%v in %s: %w", from.Cmd, from.Container, err)
		}
		return nil
	})
	g.Go(func() error {
		err := to.Run(ctx)
		_ = r.CloseWithError(errors.Join(err, io.ErrClosedPipe))
		if err != nil {
			return fmt.Errorf("%v in %s: %w", to.Cmd, to.Container, err)
		}
		return nil
	})
	return g.Wait()
}

// own is the engine's own client, for calls the API interface (and its
// fakes) leave out: those that change containers, not those that poll.
func own() (*client.Client, error) {
	api, err := Client()
	if err != nil {
		return nil, err
	}
	cli, ok := api.(*client.Client)
	if !ok {
		return nil, errors.New("the engine client is not the engine's own")
	}
	return cli, nil
}

// Logs copies a container's output (stdout and stderr, as the engine kept
// them) to w, as `docker logs` does; a container without a TTY has its
// streams multiplexed.
func Logs(ctx context.Context, name string, w io.Writer) error {
	cli, err := own()
	if err != nil {
		return err
	}
	rc, err := cli.ContainerLogs(ctx, name, container.LogsOptions{ShowStdout: true, ShowStderr: true, Timestamps: true})
	if err != nil {
		return fmt.Errorf("logs of %s: %w", name, err)
	}
	defer rc.Close()
	if _, err := stdcopy.StdCopy(w, w, rc); err != nil {
		return fmt.Errorf("logs of %s: %w", name, err)
	}
	return nil
}

// NetworkAddresses are a network's IPv4 subnet and the addresses its
// containers hold.
func NetworkAddresses(ctx context.Context, name string) (*net.IPNet, []net.IP, error) {
	cli, err := own()
	if err != nil {
		return nil, nil, err
	}
	n, err := cli.NetworkInspect(ctx, name, network.InspectOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("inspecting network %s: %w", name, err)
	}
	var subnet *net.IPNet
	for _, c := range n.IPAM.Config {
		if _, s, err := net.ParseCIDR(c.Subnet); err == nil && s.IP.To4() != nil {
			subnet = s
		}
	}
	if subnet == nil {
		return nil, nil, fmt.Errorf("network %s has no IPv4 subnet", name)
	}
	var used []net.IP
	for _, c := range n.Containers {
		if ip, _, err := net.ParseCIDR(c.IPv4Address); err == nil {
			used = append(used, ip.To4())
		}
	}
	return subnet, used, nil
}
