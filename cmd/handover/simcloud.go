package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/simulate/simcloud"
)

func newSimcloudCommand(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "simcloud", Short: "Run the simulated cloud"}
	var cluster, listen, stateDir string
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve the simulated cloud API for one kind cluster",
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
	c.AddCommand(serve)
	return c
}
