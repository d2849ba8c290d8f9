package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/simulate/simcloud"
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
)

// awsFlags serve the AWS APIs beside the cloud's own.
type awsFlags struct {
	keys, nodeNetwork  string
	clusterID          string
	listen, imdsListen []string
	imdsRequireToken   bool
}

func (a *awsFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.keys, "aws-keys", "", "serve the AWS APIs (EC2, classic ELB) to the access keys in this file (JSON, root only), each signing as the component it names")
	f.StringArrayVar(&a.listen, "aws-listen", nil, "address to serve the AWS APIs on, at /ec2/ and /elasticloadbalancing/ (repeatable)")
	f.StringArrayVar(&a.imdsListen, "imds-listen", nil, "address to serve the instance metadata service on, answering each node by its address (repeatable)")
	f.BoolVar(&a.imdsRequireToken, "imds-require-token", false, "require IMDSv2 session tokens of the metadata service's callers")
	f.StringVar(&a.nodeNetwork, "node-network", "", "the nodes' network (the VPC's CIDR), e.g. the kind network's subnet")
	f.StringVar(&a.clusterID, "aws-cluster-id", "", "the cluster ID the cluster's resources are tagged with (kubernetes.io/cluster/ID; default: the cluster's name)")
	cmd.MarkFlagsRequiredTogether("aws-keys", "aws-listen", "node-network")
}

// enabled: the AWS APIs are asked for; their flags without --aws-keys are
// a mistake the command refuses.
func (a *awsFlags) enabled() (bool, error) {
	if a.keys == "" {
		if len(a.imdsListen) > 0 || a.imdsRequireToken {
			return false, errors.New("--imds-listen and --imds-require-token need --aws-keys: the metadata service serves the AWS face's instances")
		}
		return false, nil
	}
	if _, _, err := net.ParseCIDR(a.nodeNetwork); err != nil {
		return false, fmt.Errorf("--node-network: %w", err)
	}
	return true, nil
}

// awsServers are the AWS face's handlers, each with its addresses.
type awsServers struct {
	face  *amazon.Face
	calls *amazon.CallLog
}

func (a *awsFlags) open(s *simcloud.Server, token, cluster, stateDir string) (*awsServers, error) {
	keys, err := amazon.ReadKeys(a.keys)
	if err != nil {
		return nil, err
	}
	calls, err := amazon.OpenCallLog(filepath.Join(stateDir, amazon.CallLogFile))
	if err != nil {
		return nil, err
	}
	face, err := amazon.New(amazon.Options{Cloud: amazon.LocalCloud(s.Handler(), token), Keys: keys,
		Network:   amazon.Network{Cluster: cluster, ClusterID: a.clusterID, Region: simcloud.Region, Zones: simcloud.Zones(), CIDR: a.nodeNetwork},
		StatePath: filepath.Join(stateDir, "aws-state.json"), Record: calls.Record})
	if err != nil {
		calls.Close()
		return nil, err
	}
	return &awsServers{face: face, calls: calls}, nil
}

// serve runs the cloud's API, and the AWS face's when asked, until ctx ends
// or one of them fails.
func serveAll(ctx context.Context, g *globals, cloud http.Handler, listen []string, what string, a *awsFlags, aws *awsServers) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type server struct {
		h     http.Handler
		addrs []string
		what  string
	}
	servers := []server{{cloud, listen, what}}
	if aws != nil {
		servers = append(servers, server{aws.face.Handler(), a.listen, "the AWS APIs"})
		if len(a.imdsListen) > 0 {
			servers = append(servers, server{aws.face.IMDS(a.imdsRequireToken), a.imdsListen, "the instance metadata service"})
		}
	}
	errs := make(chan error, len(servers))
	for _, s := range servers {
		go func() {
			err := serveOn(ctx, g, s.h, s.addrs, s.what)
			cancel()
			errs <- err
		}()
	}
	var err error
	for range servers {
		err = errors.Join(err, <-errs)
	}
	return err
}
