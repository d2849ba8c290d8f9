package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/interrupt"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/selfusage"
	"github.com/handover-sh/handover/timeline"
)

func newObserveCommand(g *globals) *cobra.Command {
	var f specFlags
	var ff foreignFlags
	var out string
	var duration time.Duration
	var appending bool
	c := &cobra.Command{
		Annotations: quietProcess,
		Use:         "observe",
		Short:       "Record a cluster on a timeline (e.g. while migrating it by hand), then check it",
		Long: `observe runs only the observers: lease holders, each manager's controllers,
cloud calls, API and load-balancer probes and nodes go onto --out/timeline.jsonl
until Ctrl-C or --for elapses; then the checks run and the reports are written
as by ` + "`handover report`" + `. --procedure picks which controllers count as migrated.
The window is recorded as a run (run.start to run.end), so the checks judge
the evidence of exactly that window.

With --kubeconfig it observes any cluster, e.g. a real RKE2 or kubeadm cluster
during its real migration, strictly read-only: every request it sends is a GET
(list, watch, probes), it never execs into a node, and it reads only what it is
given. From the API alone: lease holders, Nodes and LoadBalancer Services, and
who wrote them (managedFields: manager and time), which controller reported
what (Events), and the errors the managers log (their pods' logs). Given each manager's secure port (--manager) it also samples
/healthz?verbose, and /metrics with --manager-ca; given audit log files (--audit-log), every write
by a manager's cloud controller. Each check's report says which of these it had.
--print-rbac prints the roles the identity needs: a ClusterRole, and a Role
in kube-system for the leases, the managers' pods and their logs (with
--rbac-subject, their bindings too).
Without --manager-ca the managers are asked only their anonymous /healthz
and sent no credential; with it, their certificates are verified and
/metrics is read with --manager-token or the kubeconfig's credential.`,
		Example: `  handover observe --name handover --out _output/manual --for 10m
  handover observe --kubeconfig prod.kubeconfig --procedure taskdoc \
      --manager kcm@cp-1=https://10.0.0.11:10257 --manager ccm@cp-1=https://10.0.0.11:10258 \
      --audit-log /var/log/kubernetes/audit.log --out _output/prod
  handover observe --print-rbac --rbac-subject serviceaccount:kube-system:handover-observer | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if ff.printRBAC {
				return exitcode.AsBadInput(ff.printRoles(cmd.OutOrStdout()))
			}
			foreign, s, from, err := observeInput(cmd, &f, &ff, out, appending)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			if foreign {
				// What is not the input's or the verdict's is the
				// cluster's: it could not be observed.
				return exitcode.AsInfrastructure(observeForeign(cmd, g, &ff, s, out, from, duration))
			}
			run, err := openRun(g, s, out, false)
			if err != nil {
				return exitcode.AsInfrastructure(err)
			}
			defer run.tl.Close()
			start := func(ctx context.Context) (stopper, error) {
				ob, err := run.observe(ctx)
				if err == nil {
					g.logger.V(0).Infof("Observing %s into %s (Ctrl-C to stop) ...", s.Cluster, run.path)
				}
				return ob, err
			}
			return observeThenConclude(cmd, window{tl: run.tl, path: run.path, from: from, out: out, title: "observed " + s.Cluster, procedure: s.Procedure,
				controllers: s.Controllers(), duration: duration}, start)
		},
	}
	f.addTarget(c.Flags())
	ff.add(c.Flags())
	c.Flags().StringVar(&out, "out", filepath.Join(rehearsal.OutputDir, "observe"), "directory for the timeline and the reports")
	c.Flags().DurationVar(&duration, "for", 0, "stop after this long (default: at Ctrl-C)")
	c.Flags().BoolVar(&appending, "append", false, "add this observation to a timeline already in --out (judged alone); without it such a timeline is refused")
	return c
}

// observeInput reads observe's flags: whether the cluster is a foreign
// one (--kubeconfig), the spec whose controllers count as migrated, and
// where in --out's timeline this observation begins.
func observeInput(cmd *cobra.Command, f *specFlags, ff *foreignFlags, out string, appending bool) (bool, migrate.Spec, int64, error) {
	if len(ff.rbacSubjects) > 0 {
		return false, migrate.Spec{}, 0, errors.New("--rbac-subject needs --print-rbac")
	}
	foreign, err := ff.foreign(cmd.Flags())
	if err != nil {
		return false, migrate.Spec{}, 0, err
	}
	s, _, err := f.build()
	if err != nil {
		return false, s, 0, err
	}
	from, err := observationStart(out, appending)
	return foreign, s, from, err
}

// window is one observation: its timeline (path, in out), its title and
// migrated controllers, and how long it lasts (0: until Ctrl-C).
type window struct {
	tl               *timeline.Writer
	path, out, title string
	procedure        string // whose controllers count as migrated
	from             int64  // where this observation begins in the timeline
	controllers      []string
	duration         time.Duration
}

// observeThenConclude observes one window, with handover's own cost
// beside the verdict as a rehearsal reports it, then checks the timeline
// and writes the reports.
func observeThenConclude(cmd *cobra.Command, w window, start func(context.Context) (stopper, error)) error {
	ctx := cmd.Context()
	self := selfusage.Start(ctx, w.tl, 5*time.Second, nil)
	if w.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.duration)
		defer cancel()
	}
	err := observeWindow(ctx, w.tl, w.title, w.controllers, start)
	self.Stop()
	if err != nil {
		return exitcode.AsInfrastructure(err)
	}
	if err := w.tl.Close(); err != nil {
		return exitcode.AsInfrastructure(err)
	}
	if w.from > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "judging this observation alone (%s from byte %d; earlier ones are not judged again)\n", w.path, w.from)
	}
	about := judge()
	about.Procedure = w.procedure
	_, err = reports.ConcludeFrom(w.path, w.from, w.out, about, cmd.OutOrStdout())
	return exitcode.Wrap(exitcode.Red, err) // the verdict, whatever observing's callers class
}

// stopper is a running set of observers (*observe.Observer).
type stopper interface{ Stop() }

// observeWindow records one observation as a run of its own: run.start once
// the observers run (the reports read the migrated controllers from it),
// and when the window ends as asked (--for elapsed or Ctrl-C) run.end ok,
// before the observers stop. The procedure check then sees the observation
// complete, and the evidence check judges exactly the window observed; a
// process killed mid-way leaves no run.end and fails.
func observeWindow(ctx context.Context, tl *timeline.Writer, title string, controllers []string,
	start func(context.Context) (stopper, error)) error {
	ob, err := start(ctx)
	if err != nil {
		return fmt.Errorf("starting the observers: %w", err)
	}
	interrupt.FromContext(ctx).Awaited() // from here Ctrl-C ends the window as asked
	err = tl.Write(timeline.Event{Source: "observer", Kind: timeline.RunStart, Message: title,
		Attrs: map[string]string{"controllers": strings.Join(controllers, ",")}})
	if err == nil {
		<-ctx.Done()
		err = tl.Write(timeline.Event{Source: "observer", Kind: timeline.RunEnd, Outcome: timeline.OK, Message: "observation window ended"})
	}
	ob.Stop()
	return err
}
