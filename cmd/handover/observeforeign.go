package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/privatefs"
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
	noExec              bool
	rbacSubjects        []string
}

func (f *foreignFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "observe any cluster from this kubeconfig, read-only (not one of handover's: --name is then not used)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig's context (default: its current one)")
	fs.StringArrayVar(&f.managers, "manager", nil, "with --kubeconfig: a manager's secure port, [kcm|ccm[@INSTANCE]=]https://HOST:PORT, for its /healthz?verbose and /metrics (repeatable; the port says which manager when it is 10257 or 10258); without it the managers are found from kube-system's pods, and each one out of reach is named with the commands that would reach it")
	fs.StringVar(&f.managerToken, "manager-token", "", "with --manager-ca: a file holding a bearer token for the managers' /metrics (default: the kubeconfig's client certificate or token)")
	fs.StringVar(&f.managerCA, "manager-ca", "", "with --manager: a CA file the managers' serving certificates are verified against; only then is a credential sent them, for /metrics (default: not verified, and only the anonymous /healthz is asked)")
	fs.StringArrayVar(&f.auditLogs, "audit-log", nil, "with --kubeconfig: an API server's audit log file, followed as it grows (repeatable)")
	fs.BoolVar(&f.noExec, "no-exec", false, "with --kubeconfig: refuse a kubeconfig whose user runs an exec plugin for its credentials, before contacting anything (without it the plugin runs, as this process's user, and observe prints its command first)")
	fs.BoolVar(&f.probeLBs, "probe-lbs", false, "with --kubeconfig: send HTTP GETs through every LoadBalancer Service's ingress address (your workloads answer them)")
	fs.BoolVar(&f.printRBAC, "print-rbac", false, "print the roles a read-only observer needs (a ClusterRole; a Role in kube-system for the leases, the managers' pods and their logs), and exit")
	fs.StringArrayVar(&f.rbacSubjects, "rbac-subject", nil, "with --print-rbac: also print bindings of both roles to this subject, user:NAME, group:NAME or serviceaccount:NAMESPACE:NAME (repeatable)")
}

// foreign says whether the flags ask for a cluster by kubeconfig, and
// rejects foreign-only flags without one and kind-only flags with one.
func (f *foreignFlags) foreign(fs *pflag.FlagSet) (bool, error) {
	if f.kubeconfig == "" {
		for _, name := range []string{"context", "manager", "manager-token", "manager-ca", "audit-log", "probe-lbs", "no-exec"} {
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
	if f.managerToken != "" && f.managerCA == "" {
		return false, errors.New("--manager-token needs --manager-ca: a token is sent only to managers whose certificate --manager-ca verifies (without it observe asks only their anonymous /healthz, and sends no credential)")
	}
	return true, nil
}

// options read every file the flags give before anything is observed. A
// credential for the managers is read only with --manager-ca: without a
// CA to verify them, none is sent.
func (f *foreignFlags) options(rc *rest.Config) (observe.ForeignOptions, error) {
	o := observe.ForeignOptions{AuditLogs: f.auditLogs}
	seen := map[observe.Endpoint]string{}
	for _, m := range f.managers {
		u, err := observe.ParseManagerURL(m)
		if err != nil {
			return o, fmt.Errorf("--manager: %w", err)
		}
		if prev, dup := seen[u.Endpoint]; dup {
			return o, fmt.Errorf("--manager %q and %q are both %s on %s: name each instance (MANAGER@INSTANCE=URL)", prev, m, u.Manager, u.Instance)
		}
		seen[u.Endpoint] = m
		o.Managers = append(o.Managers, u)
	}
	for _, p := range f.auditLogs {
		if err := boundedfile.Check(p); err != nil {
			return o, fmt.Errorf("--audit-log: %w", err)
		}
	}
	if f.managerCA == "" {
		return o, nil
	}
	pem, err := boundedfile.Read(f.managerCA, boundedfile.ConfigLimit)
	if err != nil {
		return o, fmt.Errorf("--manager-ca: %w", err)
	}
	o.CA = x509.NewCertPool()
	if !o.CA.AppendCertsFromPEM(pem) {
		return o, fmt.Errorf("--manager-ca %s: no PEM certificate in it", f.managerCA)
	}
	o.Credential, err = f.credential(rc)
	return o, err
}

// credential is what identifies the observer to managers verified by
// --manager-ca: --manager-token, else the kubeconfig's client certificate,
// else its token.
func (f *foreignFlags) credential(rc *rest.Config) (observe.Credential, error) {
	if f.managerToken != "" {
		b, err := boundedfile.Read(f.managerToken, boundedfile.ConfigLimit)
		if err != nil {
			return observe.Credential{}, fmt.Errorf("--manager-token: %w", err)
		}
		return observe.Credential{Token: strings.TrimSpace(string(b)), From: "--manager-token " + f.managerToken}, nil
	}
	cert, err := clientCertificate(rc)
	switch {
	case err != nil:
		return observe.Credential{}, err
	case cert != nil:
		return observe.Credential{Cert: cert, From: "the kubeconfig's client certificate"}, nil
	case rc.BearerToken != "":
		return observe.Credential{Token: rc.BearerToken, From: "the kubeconfig's token"}, nil
	case rc.BearerTokenFile != "":
		b, err := boundedfile.Read(rc.BearerTokenFile, boundedfile.ConfigLimit)
		if err != nil {
			return observe.Credential{}, fmt.Errorf("kubeconfig token file: %w", err)
		}
		return observe.Credential{Token: strings.TrimSpace(string(b)), From: "the kubeconfig's token file"}, nil
	}
	return observe.Credential{}, nil
}

// printRoles prints the roles an observer needs, bound to the subjects
// given.
func (f *foreignFlags) printRoles(w io.Writer) error {
	var subjects []rbacv1.Subject
	for _, s := range f.rbacSubjects {
		sub, err := readonly.ParseSubject(s)
		if err != nil {
			return fmt.Errorf("--rbac-subject: %w", err)
		}
		subjects = append(subjects, sub)
	}
	_, err := fmt.Fprint(w, readonly.RBAC("handover-observer", subjects...))
	return err
}

// clientCertificate is the kubeconfig's client certificate, if it has one.
func clientCertificate(rc *rest.Config) (*tls.Certificate, error) {
	certPEM, keyPEM := rc.CertData, rc.KeyData
	var err error
	if len(certPEM) == 0 && rc.CertFile != "" {
		if certPEM, err = boundedfile.Read(rc.CertFile, boundedfile.ConfigLimit); err != nil {
			return nil, fmt.Errorf("kubeconfig client certificate: %w", err)
		}
		if keyPEM, err = boundedfile.Read(rc.KeyFile, boundedfile.ConfigLimit); err != nil {
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

// discoverManagers finds the managers from the API (no --manager given)
// and says, for each, how it is sampled or why it cannot be and what would
// reach it, before the window starts.
func discoverManagers(ctx context.Context, g *globals, c kubernetes.Interface) ([]observe.Found, error) {
	found, err := observe.Discover(ctx, c, observe.LocalAddresses())
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		g.logger.Warnf("no controller manager found among kube-system's pods (by component label or command): give each with --manager")
	}
	for _, m := range found {
		if m.URL == nil {
			g.logger.Warnf("%s", m)
			continue
		}
		g.logger.V(0).Infof("found %s", m)
	}
	return found, nil
}

// openReadOnly opens a kubeconfig's context as a client whose every
// request is a read (readonly.Config), after tune (nil: none) and after
// its exec plugin is refused with noExec or announced; what fails is the
// input's.
func openReadOnly(w io.Writer, kubeconfig, context string, noExec bool, tune func(*rest.Config)) (*rest.Config, kubernetes.Interface, error) {
	rc, err := readonly.Config(kubeconfig, context)
	if err != nil {
		return nil, nil, exitcode.AsBadInput(err)
	}
	if tune != nil {
		tune(rc)
	}
	if err := execPlugin(w, kubeconfig, rc, noExec); err != nil {
		return nil, nil, exitcode.AsBadInput(err)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, exitcode.AsBadInput(fmt.Errorf("kubeconfig %s: %w", kubeconfig, err))
	}
	return rc, client, nil
}

// rediscoverManagers finds the managers again while observing (their pods
// changed: a cloud-controller-manager deployed, a manager moved), naming
// once each new one it cannot reach, as discovery does before the window.
func rediscoverManagers(g *globals, c kubernetes.Interface, known []observe.Found) func(context.Context) ([]observe.ManagerURL, error) {
	named := map[string]bool{}
	for _, m := range known {
		named[m.Endpoint.Manager+"@"+m.Endpoint.Instance] = true
	}
	return func(ctx context.Context) ([]observe.ManagerURL, error) {
		found, err := observe.Discover(ctx, c, observe.LocalAddresses())
		if err != nil {
			return nil, err
		}
		for _, m := range found {
			key := m.Endpoint.Manager + "@" + m.Endpoint.Instance
			if m.URL == nil && !named[key] {
				named[key] = true
				g.logger.Warnf("%s", m)
			}
		}
		return observe.Reachable(found), nil
	}
}

// preflightTimeout bounds the look at a cluster before observing it: an
// unreachable one fails within it.
const preflightTimeout = 10 * time.Second

// observeForeign records a cluster handover did not create, read-only,
// then checks it and writes the reports.
func observeForeign(cmd *cobra.Command, g *globals, f *foreignFlags, s migrate.Spec, out string, from int64, duration time.Duration) error {
	rc, client, err := openReadOnly(cmd.ErrOrStderr(), f.kubeconfig, f.context, f.noExec, nil)
	if err != nil {
		return err
	}
	o, err := f.options(rc)
	if err != nil {
		return exitcode.AsBadInput(err)
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
	var rediscover func(context.Context) ([]observe.ManagerURL, error)
	if len(f.managers) == 0 {
		found, err := discoverManagers(cmd.Context(), g, probe)
		if err != nil {
			return err
		}
		o.Managers, rediscover = observe.Reachable(found), rediscoverManagers(g, probe, found)
	}
	reach, err := observe.Foreign(o)
	if err != nil {
		return err
	}
	for _, line := range observe.Modes(reach) {
		g.logger.V(0).Infof("--manager %s", line)
	}
	if err := observe.CheckManagers(cmd.Context(), reach); err != nil {
		return fmt.Errorf("--manager: %w", err)
	}
	if err := privatefs.MkdirAllMode(out, 0o755); err != nil {
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
			Controllers: append(s.Controllers(), "cloud-node-controller"), ManagedFields: true, ManagerPods: true, ManagerLogs: true, Rediscover: rediscover,
			NoLBProbes: !f.probeLBs, CloudOutOfReach: true})
		g.logger.V(0).Infof("Observing %s read-only into %s (Ctrl-C to stop) ...", rc.Host, path)
		return ob, nil
	}
	return observeThenConclude(cmd, window{tl: tl, path: path, from: from, out: out, title: "observed " + rc.Host, procedure: s.Procedure,
		controllers: s.Controllers(), duration: duration}, start)
}
