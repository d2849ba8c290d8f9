package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/simulate/cloud/api"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/simcloud"
)

func newSimcloudCommand(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "simcloud", Short: "Run the simulated cloud"}
	var cluster, listen, stateDir string
	serve := &cobra.Command{
		Annotations: quietProcess,
		Use:         "serve",
		Short:       "Serve the simulated cloud API for one kind cluster",
		Long: `serve runs the simulated cloud of a kind cluster in the foreground:
instances are the cluster's node containers, load balancers are handover-lb
containers on the kind network, and the route table is pulled by each node's
network agent. State (state.json) and the audit of every call (audit.jsonl) are
kept in --state-dir, so a restart loses nothing. ` + "`cluster create --cloud in-tree`" + `
starts it for you.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := simcloud.New(simcloud.Options{
				Backends: simcloud.Backends{
					Instances:     simcloud.DockerInstances{Cluster: cluster},
					LoadBalancers: simcloud.DockerLoadBalancers{Cluster: cluster, Network: "kind"},
					Routes:        simcloud.NoRoutes{},
				},
				StatePath: filepath.Join(stateDir, "state.json"),
				AuditPath: filepath.Join(stateDir, "audit.jsonl"),
				Seed:      time.Now().UnixNano(),
				Cluster:   cluster,
			})
			if err != nil {
				return err
			}
			defer s.Close()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			g.logger.V(0).Infof("simcloud for cluster %q on %s, state in %s", cluster, ln.Addr(), stateDir)
			srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
			go func() {
				<-cmd.Context().Done()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	serve.Flags().StringVar(&cluster, "cluster", "handover", "kind cluster whose nodes are the instances")
	serve.Flags().StringVar(&listen, "listen", "0.0.0.0:8080", "address to serve on")
	serve.Flags().StringVar(&stateDir, "state-dir", ".", "directory for state.json and audit.jsonl")
	c.AddCommand(serve, newFaultsCommand(g))
	return c
}

func newFaultsCommand(g *globals) *cobra.Command {
	var name string
	var errorRates []string
	var latency, outage time.Duration
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
  --clear             remove every knob
Every injected failure is recorded in the cloud's audit with the knob that caused it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, err := cloudcluster.URL(name)
			if err != nil {
				return err
			}
			client := api.NewClient(url, "handover")
			changed := clear || len(errorRates) > 0 || latency > 0 || outage > 0 || qps > 0
			if changed {
				f, err := faultsFromFlags(errorRates, latency, qps, outage, time.Now())
				if err != nil {
					return err
				}
				if err := client.SetFaults(cmd.Context(), f); err != nil {
					return err
				}
			}
			f, err := client.Faults(cmd.Context())
			if err != nil {
				return err
			}
			out, _ := json.MarshalIndent(f, "", "  ")
			fmt.Fprintln(cmd.OutOrStdout(), string(out))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "handover", "cluster name")
	f.StringArrayVar(&errorRates, "error-rate", nil, "OP=P: fail operation OP with probability P (0..1)")
	f.DurationVar(&latency, "latency", 0, "latency added to every call")
	f.Float64Var(&qps, "throttle-qps", 0, "per-caller request rate limit")
	f.DurationVar(&outage, "outage-for", 0, "fail every call from now for this long")
	f.BoolVar(&clear, "clear", false, "remove every knob")
	cmd.MarkFlagsMutuallyExclusive("clear", "error-rate")
	cmd.MarkFlagsMutuallyExclusive("clear", "latency")
	cmd.MarkFlagsMutuallyExclusive("clear", "throttle-qps")
	cmd.MarkFlagsMutuallyExclusive("clear", "outage-for")
	return cmd
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
