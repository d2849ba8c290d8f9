package amazon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
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

// CallLogFile is the call log's name in the cloud's state directory.
const CallLogFile = "aws-calls.jsonl"

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

// ActionCount is what the face answered for one action.
type ActionCount struct {
	Service, Action string
	Calls, Refused  int // refused: answered with an error
	Unimplemented   bool
}

// SummarizeCalls counts the calls a call log at path recorded from since
// on, per action, sorted by service and action. A missing log is no calls.
func SummarizeCalls(path string, since time.Time) ([]ActionCount, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]*ActionCount{}
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var r awsapi.Record
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading the AWS call log %s: %w", path, err)
		}
		if r.Time.Before(since) {
			continue
		}
		k := r.Service + ":" + r.Action
		c := counts[k]
		if c == nil {
			c = &ActionCount{Service: r.Service, Action: r.Action}
			counts[k] = c
		}
		c.Calls++
		if r.Status >= 400 {
			c.Refused++
		}
		c.Unimplemented = c.Unimplemented || r.Unimplemented
	}
	out := make([]ActionCount, 0, len(counts))
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, *counts[k])
	}
	return out, nil
}
