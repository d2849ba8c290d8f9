package amazon

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
)

// CallLog appends every AWS call answered to a JSONL file (aws-calls.jsonl
// beside the cloud's audit), and counts the unimplemented ones: the AWS
// view of the calls, with the refused signatures and the actions the cloud
// does not serve, which never reach the cloud's own audit.
type CallLog struct {
	mu            sync.Mutex
	file          *os.File
	unimplemented map[string]int
}

// OpenCallLog opens (or continues) the log at path.
func OpenCallLog(path string) (*CallLog, error) {
	f, err := privatefs.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("opening the AWS call log: %w", err)
	}
	return &CallLog{file: f, unimplemented: map[string]int{}}, nil
}

// Record appends r; a write that fails is lost, never the call.
func (l *CallLog) Record(r awsapi.Record) {
	raw, _ := json.Marshal(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Unimplemented {
		l.unimplemented[r.Service+":"+r.Action]++
	}
	_, _ = l.file.Write(append(raw, '\n'))
}

// Unimplemented are the actions called that the cloud does not serve, with
// how often.
func (l *CallLog) Unimplemented() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for k, v := range l.unimplemented {
		out[k] = v
	}
	return out
}

// Close closes the file.
func (l *CallLog) Close() error { return l.file.Close() }
