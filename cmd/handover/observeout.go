package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/timeline"
)

// observationStart decides where this observation begins in out's
// timeline: one observation, one timeline, so a timeline already holding
// events is refused unless appending was asked for; then this observation
// is judged alone, from the offset returned (the file's size now).
func observationStart(out string, appending bool) (int64, error) {
	path := filepath.Join(out, "timeline.jsonl")
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, err
	case !fi.Mode().IsRegular():
		return 0, fmt.Errorf("%s is not a regular file: remove it or give another --out", path)
	case fi.Size() == 0:
		return 0, nil
	case !appending:
		return 0, fmt.Errorf("%s already holds an observation (%d bytes%s): this one would be judged together with it; "+
			"give another --out, remove the file, or add --append (this observation is then judged alone)", path, fi.Size(), firstEvent(path))
	}
	return fi.Size(), nil
}

// firstEvent says when the timeline at path begins, for the message; ""
// where it cannot be read.
func firstEvent(path string) string {
	evs, err := timeline.ReadFile(path)
	if err != nil || len(evs) == 0 {
		return ""
	}
	return ", from " + evs[0].Time.Format("2006-01-02 15:04:05Z07:00")
}
