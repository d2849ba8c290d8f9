package cloudserver

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
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
	f, err := privatefs.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	a.file = f
	return a, nil
}

// record appends an entry. Entries are kept in the order calls ended:
// a call is timed when it began, so a slow one comes after quicker calls
// that began later, and a reader that follows by time would miss it; one
// that follows by position (after) misses nothing.
func (a *auditLog) record(e api.AuditEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, e)
	if a.file != nil {
		line, _ := json.Marshal(e)
		_, _ = a.file.Write(append(line, '\n'))
	}
}

func (a *auditLog) since(t time.Time) []api.AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []api.AuditEntry{}
	for _, e := range a.entries {
		if !e.Time.Before(t) {
			out = append(out, e)
		}
	}
	return out
}

// after returns the entries recorded after the first n, and how many
// there are now: the position to ask from next.
func (a *auditLog) after(n int) ([]api.AuditEntry, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n = min(max(n, 0), len(a.entries))
	return append([]api.AuditEntry{}, a.entries[n:]...), len(a.entries)
}

func (a *auditLog) close() error {
	if a.file == nil {
		return nil
	}
	return a.file.Close()
}
