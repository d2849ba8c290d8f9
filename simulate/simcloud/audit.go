package simcloud

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/handover-sh/handover/simulate/cloud/api"
)

// auditLog appends entries to a JSONL file and keeps them for queries.
type auditLog struct {
	mu      sync.Mutex
	file    *os.File
	entries []api.AuditEntry
}

func openAudit(path string) (*auditLog, error) {
	a := &auditLog{}
	if path == "" {
		return a, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	a.file = f
	return a, nil
}

// record keeps entries in time order: a call is recorded when it ends but
// timed when it began, so a slow call goes in before quicker later ones.
// It belongs near the end, so the walk back is short.
func (a *auditLog) record(e api.AuditEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := len(a.entries)
	for i > 0 && a.entries[i-1].Time.After(e.Time) {
		i--
	}
	a.entries = slices.Insert(a.entries, i, e)
	if a.file != nil {
		line, _ := json.Marshal(e)
		_, _ = a.file.Write(append(line, '\n'))
	}
}

func (a *auditLog) since(t time.Time) []api.AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The observers ask every second for what is new: a search, not a
	// walk of the whole audit, keeps that flat as the audit grows.
	i := sort.Search(len(a.entries), func(i int) bool { return !a.entries[i].Time.Before(t) })
	return append([]api.AuditEntry{}, a.entries[i:]...)
}

func (a *auditLog) close() error {
	if a.file == nil {
		return nil
	}
	return a.file.Close()
}
