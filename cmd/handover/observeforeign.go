package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/observe"
	"github.com/handover-sh/handover/verify/readonly"
)

// foreignFlags observe a cluster handover did not create.
type foreignFlags struct {
	kubeconfig, context string
	managers            []string
	managerToken        string
	managerCA           string
	auditLogs           []string
	probeLBs            bool
	printRBAC           bool
}

func (f *foreignFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "observe any cluster from this kubeconfig, read-only (not one of handover's: --name is then not used)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig's context (default: its current one)")
	fs.StringArrayVar(&f.managers, "manager", nil, "with --kubeconfig: a manager's secure port, [kcm|ccm[@INSTANCE]=]https://HOST:PORT, for its /healthz?verbose and /metrics (repeatable; the port says which manager when it is 10257 or 10258)")
	fs.StringVar(&f.managerToken, "manager-token", "", "with --manager: a file holding a bearer token for the managers (default: the kubeconfig's client certificate)")
	fs.StringVar(&f.managerCA, "manager-ca", "", "with --manager: a CA file the managers' serving certificates are verified against (default: not verified; they are usually self-signed)")
	fs.StringArrayVar(&f.auditLogs, "audit-log", nil, "with --kubeconfig: an API server's audit log file, followed as it grows (repeatable)")
	fs.BoolVar(&f.probeLBs, "probe-lbs", false, "with --kubeconfig: send HTTP GETs through every LoadBalancer Service's ingress address (your workloads answer them)")
	fs.BoolVar(&f.printRBAC, "print-rbac", false, "print the ClusterRole a read-only observer needs, and exit")
}

// foreign says whether the flags ask for a cluster by kubeconfig, and
// rejects foreign-only flags without one and kind-only flags with one.
func (f *foreignFlags) foreign(fs *pflag.FlagSet) (bool, error) {
	if f.kubeconfig == "" {
		for _, name := range []string{"context", "manager", "manager-token", "manager-ca", "audit-log", "probe-lbs"} {
			if fs.Changed(name) {
				return false, fmt.Errorf("--%s needs --kubeconfig: handover's own clusters are reached through their nodes", name)
			}
		}
		return false, nil
	}
	if fs.Changed("name") {
		return false, errors.New("--kubeconfig and --name contradict each other: --name is one of handover's clusters, --kubeconfig any other")
	}
	if (f.managerToken != "" || f.managerCA != "") && len(f.managers) == 0 {
		return false, errors.New("--manager-token and --manager-ca need at least one --manager")
	}
	return true, nil
}

// reach builds the observers' reach from the flags, reading every file
// given before anything is observed.
func (f *foreignFlags) reach(rc *rest.Config) (observe.Reach, error) {
	o := observe.ForeignOptions{AuditLogs: f.auditLogs}
	seen := map[observe.Endpoint]string{}
	for _, m := range f.managers {
		u, err := observe.ParseManagerURL(m)
		if err != nil {
			return nil, fmt.Errorf("--manager: %w", err)
		}
		if prev, dup := seen[u.Endpoint]; dup {
			return nil, fmt.Errorf("--manager %q and %q are both %s on %s: name each instance (MANAGER@INSTANCE=URL)", prev, m, u.Manager, u.Instance)
		}
		seen[u.Endpoint] = m
		o.Managers = append(o.Managers, u)
	}
	for _, p := range f.auditLogs {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("--audit-log: %w", err)
		}
	}
	tc := &tls.Config{InsecureSkipVerify: f.managerCA == ""} //nolint:gosec // managers' serving certs are self-signed unless a CA is given
	if f.managerCA != "" {
		pem, err := os.ReadFile(f.managerCA)
		if err != nil {
			return nil, fmt.Errorf("--manager-ca: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--manager-ca %s: no PEM certificate in it", f.managerCA)
		}
	}
	if f.managerToken != "" {
		b, err := os.ReadFile(f.managerToken)
		if err != nil {
			return nil, fmt.Errorf("--manager-token: %w", err)
		}
		o.Token = strings.TrimSpace(string(b))
	} else if cert, err := clientCertificate(rc); err != nil {
		return nil, err
	} else if cert != nil {
		tc.Certificates = []tls.Certificate{*cert}
	} else if rc.BearerToken != "" {
		o.Token = rc.BearerToken
	} else if rc.BearerTokenFile != "" {
		b, err := os.ReadFile(rc.BearerTokenFile)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig token file: %w", err)
		}
		o.Token = strings.TrimSpace(string(b))
	}
	o.TLS = tc
	return observe.Foreign(o), nil
}

// clientCertificate is the kubeconfig's client certificate, if it has one.
func clientCertificate(rc *rest.Config) (*tls.Certificate, error) {
	certPEM, keyPEM := rc.CertData, rc.KeyData
	var err error
	if len(certPEM) == 0 && rc.CertFile != "" {
		if certPEM, err = os.ReadFile(rc.CertFile); err != nil {
			return nil, fmt.Errorf("kubeconfig client certificate: %w", err)
		}
		if keyPEM, err = os.ReadFile(rc.KeyFile); err != nil {
			return nil, fmt.Errorf("kubeconfig client key: %w", err)
		}
	}
	if len(certPEM) == 0 {
		return nil, nil
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig client certificate: %w", err)
	}
	return &c, nil
}

// preflightTimeout bounds the look at a cluster before observing it: an
// unreachable one fails within it.
const preflightTimeout = 10 * time.Second

// observeForeign records a cluster handover did not create, read-only,
// then checks it and writes the reports.
func observeForeign(cmd *cobra.Command, g *globals, f *foreignFlags, s migrate.Spec, out string, duration time.Duration) error {
	rc, err := readonly.Config(f.kubeconfig, f.context)
	if err != nil {
		return err
	}
	reach, err := f.reach(rc)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", f.kubeconfig, err)
	}
	pc := rest.CopyConfig(rc)
	pc.Timeout = preflightTimeout
	probe, err := kubernetes.NewForConfig(pc)
	if err != nil {
		return err
	}
	if err := readonly.Preflight(cmd.Context(), probe, preflightTimeout); err != nil {
		return fmt.Errorf("%s (%s): %w", f.kubeconfig, rc.Host, err)
	}
	if err := observe.CheckManagers(cmd.Context(), reach); err != nil {
		return fmt.Errorf("--manager: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, "timeline.jsonl")
	tl, err := timeline.Create(path)
	if err != nil {
		return err
	}
	defer tl.Close()
	start := func(ctx context.Context) (stopper, error) {
		ob := observe.Start(ctx, observe.Options{Reach: reach, Client: client, REST: rc, Timeline: tl, Logger: g.logger,
			Leases:      []string{s.LeaderName, "kube-controller-manager", "cloud-controller-manager"},
			Controllers: append(s.Controllers(), "cloud-node-controller"), ManagedFields: true, NoLBProbes: !f.probeLBs, CloudOutOfReach: true})
		g.logger.V(0).Infof("Observing %s read-only into %s (Ctrl-C to stop) ...", rc.Host, path)
		return ob, nil
	}
	return observeThenConclude(cmd, window{tl: tl, path: path, out: out, title: "observed " + rc.Host,
		controllers: s.Controllers(), duration: duration}, start)
}
