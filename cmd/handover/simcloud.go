package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
	"github.com/handover-sh/handover/simulate/cloudserver"
)

func newSimcloudCommand(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "simcloud", Short: "Run the simulated cloud"}
	var cluster, stateDir, cloudConfig, adminTokenFile, podNetwork string
	var listen []string
	var registryHost, registryTokenKey string
	serve := &cobra.Command{
		Annotations: quietProcess,
		Use:         "serve",
		Short:       "Serve the simulated cloud API for one kind cluster",
		Long: `serve runs the simulated cloud of a kind cluster in the foreground:
instances are the cluster's node containers, load balancers are handover-lb
containers on the kind network, and the route table is pulled by each node's
network agent. State (state.json) and the audit of every call (audit.jsonl) are
kept in --state-dir, so a restart loses nothing. ` + "`cluster create --cloud in-tree`" + `
starts it for you.

Every call must carry the token of --cloud-config (Authorization: Bearer), the
file the cluster's managers and kubelets read; calls without it are refused and
not audited. The admin calls (the fault knobs, terminating an instance,
virtual instances and load balancers, the audit) need the token of
--admin-token-file instead, which handover keeps on the host and mounts into
no node: a node's token there is refused (403). Routes must lie inside --pod-network and point at the cluster's
instances; load balancers relay only to the cluster's instances.` + facesHelp(),
		Args: cobra.NoArgs,
	}
	withFaces := faceFlags(serve)
	// What the flags give is bad input; what fails serving, the machine's.
	serve.RunE = failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, _ []string) error {
		listens := map[string][]string{"--listen": listen}
		for _, f := range withFaces {
			maps.Copy(listens, f.Listens())
		}
		if err := checkListens(listens); err != nil {
			return exitcode.AsBadInput(err)
		}
		guard, err := serveGuard(cloudConfig, podNetwork)
		if err != nil {
			return exitcode.AsBadInput(err)
		}
		adminToken, err := cloudcluster.ReadAdminToken(adminTokenFile)
		if err != nil {
			return exitcode.AsBadInput(fmt.Errorf("--admin-token-file: %w", err))
		}
		asked, err := askedFaces(withFaces)
		if err != nil {
			return exitcode.AsBadInput(err)
		}
		reg, err := serveRegistry(registryHost, registryTokenKey)
		if err != nil {
			return exitcode.AsBadInput(err)
		}
		s, err := cloudserver.New(cloudserver.Options{
			Backends: cloudserver.Backends{
				Instances:     cloudserver.DockerInstances{Cluster: cluster, As: guard.as},
				LoadBalancers: cloudserver.DockerLoadBalancers{Cluster: cluster, Network: "kind"},
				Routes:        cloudserver.NoRoutes{},
			},
			StatePath:  filepath.Join(stateDir, "state.json"),
			AuditPath:  filepath.Join(stateDir, "audit.jsonl"),
			Seed:       time.Now().UnixNano(),
			Cluster:    cluster,
			As:         guard.as,
			Token:      guard.token,
			AdminToken: adminToken,
			PodNetwork: guard.podNetwork,
			Registry:   reg,
		})
		if err != nil {
			return err
		}
		defer s.Close()
		endpoints := []cloudserver.Endpoint{{Handler: s.Handler(), Addrs: listen, What: fmt.Sprintf("simcloud for cluster %q, state in %s", cluster, stateDir)}}
		faceEndpoints, closeFaces, err := openFaces(asked, cloudserver.FaceInput{Cloud: s, Token: guard.token, Cluster: cluster, StateDir: stateDir, RegistryKey: reg.TokenKey, RegistryHost: reg.Host})
		defer closeFaces()
		if err != nil {
			return err
		}
		return serveAll(cmd.Context(), g, append(endpoints, faceEndpoints...))
	})
	serve.Flags().StringVar(&cluster, "cluster", topology.DefaultName, "kind cluster whose nodes are the instances")
	serve.Flags().StringArrayVar(&listen, "listen", []string{"127.0.0.1:8080"}, "address to serve on, IP:PORT (repeatable): loopback or the kind network's gateway; an unspecified address (0.0.0.0, ::, :PORT) is refused")
	serve.Flags().StringVar(&stateDir, "state-dir", ".", "directory for state.json and audit.jsonl")
	serve.Flags().StringVar(&cloudConfig, "cloud-config", "", "the cluster's cloud configuration (JSON with url and token): its token is required of every call")
	serve.Flags().StringVar(&adminTokenFile, "admin-token-file", "", "file of the cloud's admin token (root only, on the host): required of the admin calls, which the --cloud-config token cannot make")
	serve.Flags().StringVar(&podNetwork, "pod-network", "", "the cluster's pod network: routes outside it are refused")
	serve.Flags().StringVar(&registryHost, "registry", "", "the cloud's container registry (its name): callers get tokens for it at POST /v1/registry/token, signed with --registry-token-key")
	serve.Flags().StringVar(&registryTokenKey, "registry-token-key", "", "file of the key the registry tokens' passwords are signed with (the cloud's own and ECR's), which the registry checks them with (default: a new random key, which no registry shares)")
	_ = serve.MarkFlagRequired("cloud-config")
	_ = serve.MarkFlagRequired("admin-token-file")
	_ = serve.MarkFlagRequired("pod-network")
	c.AddCommand(serve, newFaultsCommand(g))
	return c
}

func newFaultsCommand(g *globals) *cobra.Command {
	var name string
	var errorRates, deny, scope []string
	var latency, outage, lag time.Duration
	var qps float64
	var clear bool
	cmd := &cobra.Command{
		Use:   "faults",
		Short: "Show or change the fault knobs of a cluster's simulated cloud",
		Long: `faults prints the knobs in force, or replaces them when any flag is given:
  --error-rate OP=P   fail operation OP (e.g. EnsureLoadBalancer, CreateRoute,
                      GetInstance; * for all) with probability P (repeatable)
  --latency D         add D to every call
  --throttle-qps Q    limit each calling component to Q requests per second (429)
  --outage-for D      fail every call with 503 from now for D
  --deny C=OP[,OP]    refuse caller component C the operations OP with 403, as
                      credentials without the permission (e.g.
                      cloud-controller-manager=CreateRoute,DeleteRoute; repeatable)
  --scope C=WHERE     let caller component C see only the instances of region or
                      zone WHERE: others are not found (404) and not listed, as
                      credentials or a cloud-config of another region (e.g.
                      cloud-controller-manager=sim-region-1a; repeatable)
  --lag D             answer the managers and kubelets about instances D late, as
                      an eventually consistent API: one launched less than D ago
                      is not found (404) or listed, one terminated less than D
                      ago is still answered as it was
  --clear             remove every knob
Every injected failure is recorded in the cloud's audit with the knob that caused it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			client, err := cloudClient(name)
			if err != nil {
				return err
			}
			changed := clear || len(errorRates) > 0 || len(deny) > 0 || len(scope) > 0 || latency > 0 || outage > 0 || qps > 0 || lag > 0
			if changed {
				f, err := faultsFromFlags(errorRates, latency, qps, outage, time.Now())
				if err != nil {
					return exitcode.AsBadInput(err)
				}
				if f.Deny, err = denyFromFlags(deny); err != nil {
					return exitcode.AsBadInput(err)
				}
				if f.Scope, err = scopeFromFlags(scope); err != nil {
					return exitcode.AsBadInput(err)
				}
				f.Lag = api.Duration{Duration: lag}
				if err := client.SetFaults(cmd.Context(), f); err != nil {
					return exitcode.AsInfrastructure(err)
				}
			}
			f, err := client.Faults(cmd.Context())
			if err != nil {
				return exitcode.AsInfrastructure(err)
			}
			out, _ := json.MarshalIndent(f, "", "  ")
			fmt.Fprintln(cmd.OutOrStdout(), string(out))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", topology.DefaultName, "cluster name")
	f.StringArrayVar(&errorRates, "error-rate", nil, "OP=P: fail operation OP with probability P (0..1)")
	f.DurationVar(&latency, "latency", 0, "latency added to every call")
	f.Float64Var(&qps, "throttle-qps", 0, "per-caller request rate limit")
	f.DurationVar(&outage, "outage-for", 0, "fail every call from now for this long")
	f.StringArrayVar(&deny, "deny", nil, "COMPONENT=OP[,OP]: refuse that caller those operations (403)")
	f.StringArrayVar(&scope, "scope", nil, "COMPONENT=REGION|ZONE: that caller sees only those instances")
	f.DurationVar(&lag, "lag", 0, "how late the managers and kubelets learn of an instance's launch or termination")
	f.BoolVar(&clear, "clear", false, "remove every knob")
	cmd.MarkFlagsMutuallyExclusive("clear", "error-rate")
	cmd.MarkFlagsMutuallyExclusive("clear", "deny")
	cmd.MarkFlagsMutuallyExclusive("clear", "scope")
	cmd.MarkFlagsMutuallyExclusive("clear", "latency")
	cmd.MarkFlagsMutuallyExclusive("clear", "throttle-qps")
	cmd.MarkFlagsMutuallyExclusive("clear", "outage-for")
	cmd.MarkFlagsMutuallyExclusive("clear", "lag")
	return cmd
}

// denyFromFlags reads --deny COMPONENT=OP[,OP] (repeatable; a component
// given twice gets both lists).
func denyFromFlags(flags []string) (map[string][]string, error) {
	var out map[string][]string
	for _, d := range flags {
		component, ops, ok := strings.Cut(d, "=")
		list := strings.Split(ops, ",")
		if !ok || component == "" || slices.Contains(list, "") {
			return nil, fmt.Errorf("--deny %q: use COMPONENT=OP[,OP], e.g. cloud-controller-manager=CreateRoute,DeleteRoute", d)
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[component] = append(out[component], list...)
	}
	return out, nil
}

// scopeFromFlags reads --scope COMPONENT=REGION|ZONE (repeatable; one
// scope per component).
func scopeFromFlags(flags []string) (map[string]string, error) {
	var out map[string]string
	for _, d := range flags {
		component, where, ok := strings.Cut(d, "=")
		if !ok || component == "" || where == "" {
			return nil, fmt.Errorf("--scope %q: use COMPONENT=REGION or COMPONENT=ZONE, e.g. cloud-controller-manager=sim-region-1a", d)
		}
		if prev, dup := out[component]; dup {
			return nil, fmt.Errorf("--scope: %s given twice (%s, %s): credentials have one scope", component, prev, where)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[component] = where
	}
	return out, nil
}

// faultsFromFlags builds the knobs the flags ask for.
func faultsFromFlags(errorRates []string, latency time.Duration, qps float64, outage time.Duration, now time.Time) (api.Faults, error) {
	f := api.Faults{Latency: api.Duration{Duration: latency}, ThrottleQPS: qps}
	for _, er := range errorRates {
		op, p, ok := strings.Cut(er, "=")
		rate, err := strconv.ParseFloat(p, 64)
		if !ok || op == "" || err != nil || rate < 0 || rate > 1 {
			return f, fmt.Errorf("--error-rate %q: use OP=P with P between 0 and 1, e.g. EnsureLoadBalancer=0.5", er)
		}
		if f.ErrorRate == nil {
			f.ErrorRate = map[string]float64{}
		}
		f.ErrorRate[op] = rate
	}
	if qps < 0 {
		return f, fmt.Errorf("--throttle-qps %v: use a positive rate", qps)
	}
	if outage > 0 {
		f.Outages = []api.Window{{Start: now, End: now.Add(outage)}}
	}
	return f, nil
}

type cloudGuard struct {
	token      string
	podNetwork *net.IPNet
	as         behaviour.Behaviour // the provider the cloud names things as
}

// serveGuard reads what the cloud requires of its callers.
func serveGuard(cloudConfig, podNetwork string) (cloudGuard, error) {
	var g cloudGuard
	raw, err := boundedfile.Read(cloudConfig, boundedfile.ConfigLimit)
	if err != nil {
		return g, fmt.Errorf("--cloud-config: %w", err)
	}
	var cfg provider.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return g, fmt.Errorf("--cloud-config %s: %w", cloudConfig, err)
	}
	if len(cfg.Token) < 32 {
		return g, fmt.Errorf("--cloud-config %s: the token is missing or shorter than 32 characters", cloudConfig)
	}
	g.token = cfg.Token
	if g.as, err = behaviour.Lookup(cfg.Profile); err != nil {
		return g, fmt.Errorf("--cloud-config %s: profile %w", cloudConfig, err)
	}
	if _, g.podNetwork, err = net.ParseCIDR(podNetwork); err != nil {
		return g, fmt.Errorf("--pod-network: %w", err)
	}
	return g, nil
}

// serveOn serves h on every address (over TLS with tlsCfg) until ctx
// ends; one that fails to listen or serve ends them all.
func serveOn(ctx context.Context, g *globals, h http.Handler, addrs []string, what string, tlsCfg *tls.Config) error {
	var lns []net.Listener
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return err
		}
		if tlsCfg != nil {
			ln = tls.NewListener(ln, tlsCfg)
		}
		lns = append(lns, ln)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	g.logger.V(0).Infof("%s on %v", what, addrs)
	errs := make(chan error, len(lns))
	for _, ln := range lns {
		go func() { errs <- srv.Serve(ln) }()
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
