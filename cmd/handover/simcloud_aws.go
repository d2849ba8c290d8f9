package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/simulate/simcloud"
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
	"github.com/handover-sh/handover/simulate/simcloud/ecrtoken"
)

// awsFlags serve the AWS APIs beside the cloud's own.
type awsFlags struct {
	keys, nodeNetwork  string
	clusterID          string
	listen, imdsListen []string
	imdsRequireToken   bool
	// The AWS APIs over TLS, where ECR's credential callers reach them
	// (its tokens are credentials: never sent in the clear).
	tlsListen            []string
	tlsCert, tlsKey      string
	registryTokenKeyPath string
}

func (a *awsFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.keys, "aws-keys", "", "serve the AWS APIs (EC2, classic ELB) to the access keys in this file (JSON, root only), each signing as the component (and node) it names; the file is read again when replaced: a key added is served, one removed refused, from the next call on; a terminated instance's node keys are refused")
	f.StringArrayVar(&a.listen, "aws-listen", nil, "address to serve the AWS APIs on, at /ec2/ and /elasticloadbalancing/ (repeatable)")
	f.StringArrayVar(&a.imdsListen, "imds-listen", nil, "address to serve the instance metadata service on, answering each node by its address (repeatable)")
	f.StringArrayVar(&a.tlsListen, "aws-tls-listen", nil, "address to serve the AWS APIs on over TLS (repeatable): also at /, by X-Amz-Target, as ECR answers at its default endpoint")
	f.StringVar(&a.tlsCert, "aws-tls-cert", "", "PEM certificate (chain) of the --aws-tls-listen server")
	f.StringVar(&a.tlsKey, "aws-tls-key", "", "PEM private key of the --aws-tls-listen server")
	f.StringVar(&a.registryTokenKeyPath, "registry-token-key", "", "file of the key the registry tokens' passwords are signed with (the cloud's own and ECR's), which the registry checks them with (default: a new random key, which no registry shares)")
	f.BoolVar(&a.imdsRequireToken, "imds-require-token", false, "require IMDSv2 session tokens of the metadata service's callers")
	f.StringVar(&a.nodeNetwork, "node-network", "", "the nodes' network (the VPC's CIDR), e.g. the kind network's subnet")
	f.StringVar(&a.clusterID, "aws-cluster-id", "", "the cluster ID the cluster's resources are tagged with (kubernetes.io/cluster/ID; default: the cluster's name)")
	cmd.MarkFlagsRequiredTogether("aws-keys", "aws-listen", "node-network")
	cmd.MarkFlagsRequiredTogether("aws-tls-listen", "aws-tls-cert", "aws-tls-key")
}

// enabled: the AWS APIs are asked for; their flags without --aws-keys are
// a mistake the command refuses.
func (a *awsFlags) enabled() (bool, error) {
	if a.keys == "" {
		if len(a.imdsListen) > 0 || a.imdsRequireToken || len(a.tlsListen) > 0 {
			return false, errors.New("--imds-listen, --imds-require-token and --aws-tls-listen need --aws-keys: they serve the AWS face")
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
	tls   *tls.Config
}

func (a *awsFlags) open(s *simcloud.Server, token, cluster, stateDir string, registryKey []byte) (*awsServers, error) {
	keys, err := amazon.OpenKeyFile(a.keys)
	if err != nil {
		return nil, err
	}
	var tlsCfg *tls.Config
	if len(a.tlsListen) > 0 {
		pair, err := tls.LoadX509KeyPair(a.tlsCert, a.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("--aws-tls-cert/--aws-tls-key: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	calls, err := amazon.OpenCallLog(filepath.Join(stateDir, amazon.CallLogFile))
	if err != nil {
		return nil, err
	}
	face, err := amazon.New(amazon.Options{Cloud: amazon.LocalCloud(s.Handler(), token), Keys: keys, Terminated: s.Terminated, TokenKey: registryKey,
		Network:   amazon.Network{Cluster: cluster, ClusterID: a.clusterID, Region: simcloud.Region, Zones: simcloud.Zones(), CIDR: a.nodeNetwork},
		StatePath: filepath.Join(stateDir, "aws-state.json"), Record: calls.Record})
	if err != nil {
		calls.Close()
		return nil, err
	}
	return &awsServers{face: face, calls: calls, tls: tlsCfg}, nil
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
		tls   *tls.Config
	}
	servers := []server{{cloud, listen, what, nil}}
	if aws != nil {
		servers = append(servers, server{aws.face.Handler(), a.listen, "the AWS APIs", nil})
		if len(a.imdsListen) > 0 {
			servers = append(servers, server{aws.face.IMDS(a.imdsRequireToken), a.imdsListen, "the instance metadata service", nil})
		}
		if len(a.tlsListen) > 0 {
			servers = append(servers, server{aws.face.Handler(), a.tlsListen, "the AWS APIs over TLS", aws.tls})
		}
	}
	errs := make(chan error, len(servers))
	for _, s := range servers {
		go func() {
			err := serveOn(ctx, g, s.h, s.addrs, s.what, s.tls)
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

// registry is the cloud's own registry: its name and the key of its tokens
// (the key ECR's share). A name needs the key; a key alone serves ECR.
func (a *awsFlags) registry(host string) (simcloud.Registry, error) {
	if a.registryTokenKeyPath == "" {
		if host != "" {
			return simcloud.Registry{}, errors.New("--registry needs --registry-token-key: the registry checks its tokens with that key")
		}
		return simcloud.Registry{}, nil
	}
	key, err := ecrtoken.ReadKey(a.registryTokenKeyPath)
	if err != nil {
		return simcloud.Registry{}, err
	}
	return simcloud.Registry{Host: host, TokenKey: key}, nil
}
