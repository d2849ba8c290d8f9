package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/observe"
)

// preflight lints the managers a procedure runs; errors stop the command
// before anything changes, unless forced.
func preflight(g *globals, s migrate.Spec, force bool) error {
	fs := s.Lint()
	if len(fs) == 0 {
		return nil
	}
	g.logger.Warnf("preflight lint:\n%s", fs.Head(lint.Shown))
	if fs.Errors() > 0 && !force {
		return fmt.Errorf("preflight lint found %d error(s); nothing was changed (--force goes on anyway)", fs.Errors())
	}
	return nil
}

// opened is a run's timeline and the environment the procedure and the
// observers share.
type opened struct {
	tl   *timeline.Writer
	path string // of the timeline
	env  *migrate.Env
	kind *kindcluster.Cluster
}

// openRun opens dir/timeline.jsonl (appending, or fresh) and the cluster
// the spec names.
func openRun(g *globals, s migrate.Spec, dir string, fresh bool) (*opened, error) {
	kc, err := openCluster(s.Cluster, g.logger)
	if err != nil {
		return nil, err
	}
	if err := privatefs.MkdirAllMode(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "timeline.jsonl")
	if fresh {
		_ = os.Remove(path)
	}
	tl, err := timeline.Create(path)
	if err != nil {
		return nil, err
	}
	env, err := migrate.NewEnv(s, kc, g.logger, tl)
	if err != nil {
		tl.Close()
		return nil, err
	}
	return &opened{tl: tl, path: path, env: env, kind: kc}, nil
}

// recordThresholds puts thresholds not the checks' defaults on the run's
// timeline, where the reports read them.
func (o *opened) recordThresholds(t map[string]string) error {
	if len(t) == 0 {
		return nil
	}
	return o.tl.Write(timeline.Event{Source: "handover", Kind: timeline.Thresholds, Attrs: t})
}

// observe starts the observers on the run's cluster.
func (o *opened) observe(ctx context.Context) (*observe.Observer, error) {
	return rehearsal.Observe(ctx, o.kind, o.env, o.tl)
}
