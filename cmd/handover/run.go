package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/verify/timeline"
)

// preflight lints the managers a procedure runs; errors stop the command
// before anything changes, unless forced.
func preflight(g *globals, s migrate.Spec, force bool) error {
	fs := s.Lint()
	if len(fs) == 0 {
		return nil
	}
	g.logger.Warnf("preflight lint:\n%s", fs)
	if fs.Errors() > 0 && !force {
		return fmt.Errorf("preflight lint found %d error(s); nothing was changed (--force goes on anyway)", fs.Errors())
	}
	return nil
}

// openRun opens dir/timeline.jsonl (appending, or fresh) and the
// environment the procedure and the observers share.
func openRun(g *globals, s migrate.Spec, dir string, fresh bool) (*timeline.Writer, string, *migrate.Env, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", nil, err
	}
	path := filepath.Join(dir, "timeline.jsonl")
	if fresh {
		_ = os.Remove(path)
	}
	tl, err := timeline.Create(path)
	if err != nil {
		return nil, "", nil, err
	}
	env, err := migrate.NewEnv(s, g.logger, tl)
	if err != nil {
		tl.Close()
		return nil, "", nil, err
	}
	return tl, path, env, nil
}
