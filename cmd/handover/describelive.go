package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/rehearsal/live"
	"github.com/handover-sh/handover/verify/readonly"
)

// liveFlags describe a running cluster.
type liveFlags struct {
	kubeconfig, context, out string
	noExec, printRBAC        bool
	rbacSubjects             []string
}

func (f *liveFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "describe the running cluster of this kubeconfig, read-only")
	fs.StringVar(&f.context, "context", "", "with --kubeconfig: the kubeconfig's context (default: its current one)")
	fs.StringVar(&f.out, "out", "", "with --kubeconfig: write rehearsal.yaml there, with the files it names beside it (a leader-migration configuration a ConfigMap holds); needed when there are such files")
	fs.BoolVar(&f.noExec, "no-exec", false, "with --kubeconfig: refuse a kubeconfig whose user runs an exec plugin for its credentials, before contacting anything")
	fs.BoolVar(&f.printRBAC, "print-rbac", false, "print the roles describe --kubeconfig needs to read a cluster (a ClusterRole; a Role in kube-system), and exit")
	fs.StringArrayVar(&f.rbacSubjects, "rbac-subject", nil, "with --print-rbac: also print bindings of both roles to this subject, user:NAME, group:NAME or serviceaccount:NAMESPACE:NAME (repeatable)")
}

// given says whether the flags ask for a running cluster, refusing those
// that need one without it.
func (f *liveFlags) given(c *cobra.Command) (bool, error) {
	if f.printRBAC {
		for _, name := range []string{"kubeconfig", "context", "out", "no-exec"} {
			if c.Flags().Changed(name) {
				return false, fmt.Errorf("--print-rbac and --%s: --print-rbac prints the roles and reads no cluster", name)
			}
		}
		return true, nil
	}
	if c.Flags().Changed("rbac-subject") {
		return false, errors.New("--rbac-subject needs --print-rbac: it binds the printed roles")
	}
	if f.kubeconfig != "" {
		return true, nil
	}
	if c.Flags().Changed("rbac-subject") && !f.printRBAC {
		return false, errors.New("--rbac-subject needs --print-rbac: it binds the printed roles")
	}
	for _, name := range []string{"context", "out", "no-exec"} {
		if c.Flags().Changed(name) {
			return false, fmt.Errorf("--%s needs --kubeconfig", name)
		}
	}
	return false, nil
}

// run prints the roles, or reads the cluster and prints (and with --out
// writes) its rehearsal.
func (f *liveFlags) run(c *cobra.Command) error {
	if f.printRBAC {
		return f.printRoles(c.OutOrStdout())
	}
	d, err := f.describe(c)
	if err != nil {
		return err
	}
	return f.write(c.OutOrStdout(), d)
}

// describe reads the cluster of --kubeconfig, read-only, and derives its
// rehearsal.
func (f *liveFlags) describe(c *cobra.Command) (*live.Description, error) {
	rc, client, err := openReadOnly(c.ErrOrStderr(), f.kubeconfig, f.context, f.noExec, func(rc *rest.Config) {
		rc.UserAgent = "handover-describer"
		// A cluster that stops answering fails a read, not the process:
		// each request is bounded (observe's preflight bounds its own).
		rc.Timeout = describeTimeout
	})
	if err != nil {
		return nil, err
	}
	source := f.kubeconfig
	if f.context != "" {
		source += " (context " + f.context + ")"
	}
	cl, err := live.Read(c.Context(), client, source+" at "+rc.Host)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Infrastructure, err)
	}
	d, err := live.Describe(cl)
	if err != nil {
		return nil, exitcode.AsBadInput(err)
	}
	return d, nil
}

// write prints the rehearsal file and, with --out, writes it and the
// files it names there; without --out a file beside it is an error.
func (f *liveFlags) write(w io.Writer, d *live.Description) error {
	path := "rehearsal.yaml"
	if f.out == "" && len(d.Beside) > 0 {
		return exitcode.AsBadInput(fmt.Errorf("the rehearsal names files of the cluster's (%v): give --out DIR to write them beside it", slices.Sorted(maps.Keys(d.Beside))))
	}
	if f.out != "" {
		path = filepath.Join(f.out, "rehearsal.yaml")
		if err := privatefs.MkdirAll(f.out); err != nil {
			return exitcode.AsBadInput(fmt.Errorf("--out: %w", err))
		}
		for name, content := range d.Beside {
			if err := privatefs.WriteFile(filepath.Join(f.out, name), []byte(content)); err != nil {
				return exitcode.AsInfrastructure(fmt.Errorf("--out: %w", err))
			}
		}
	}
	raw, err := d.File.YAML()
	if err != nil {
		return exitcode.AsInfrastructure(err)
	}
	full := fmt.Appendf(nil, "%s\n%s\n", raw, d.File.Verdict(path))
	if f.out != "" {
		if err := privatefs.WriteFile(path, full); err != nil {
			return exitcode.AsInfrastructure(fmt.Errorf("--out: %w", err))
		}
	}
	_, err = w.Write(full)
	return exitcode.AsInfrastructure(err)
}

// printRoles prints the roles describe needs, bound to the subjects given.
func (f *liveFlags) printRoles(w io.Writer) error {
	var subjects []rbacv1.Subject
	for _, s := range f.rbacSubjects {
		sub, err := readonly.ParseSubject(s)
		if err != nil {
			return exitcode.AsBadInput(fmt.Errorf("--rbac-subject: %w", err))
		}
		subjects = append(subjects, sub)
	}
	_, err := fmt.Fprint(w, live.Roles().YAML(subjects...))
	return exitcode.AsInfrastructure(err)
}

// describeTimeout bounds each request describe sends.
const describeTimeout = 30 * time.Second

var errLiveAndRancher = errors.New("--kubeconfig and a Rancher file: describe one cluster, running or as Rancher's YAML")
