package azure

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
)

// Record is what the face reports of each call it answers. It never holds
// a token: the metadata service's answers and ARM's Authorization headers
// are credentials.
type Record struct {
	Time time.Time `json:"time"`
	// Service is "arm" or "imds".
	Service string `json:"service"`
	// Action is ARM's name of the operation (the one its role
	// definitions grant: "Microsoft.Network/loadBalancers/write"), or the
	// metadata service's path.
	Action     string `json:"action"`
	Resource   string `json:"resource,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	Principal  string `json:"principal,omitempty"` // "" when the token was refused
	Node       string `json:"node,omitempty"`
	RemoteAddr string `json:"remoteAddr"`
	Status     int    `json:"status"`
	Code       string `json:"code,omitempty"` // the error code, "" on success
	Message    string `json:"message,omitempty"`
	Fault      string `json:"fault,omitempty"` // the cloud's knob behind a refusal
	// Unimplemented: ARM serves the call, this face does not.
	Unimplemented bool `json:"unimplemented,omitempty"`
}

// CallLog appends every call answered to a JSONL file (azure-calls.jsonl
// beside the cloud's audit): the Azure view of the calls, with the refused
// tokens and the operations the face does not serve, which never reach the
// cloud's own audit.
type CallLog struct {
	mu            sync.Mutex
	file          *os.File
	unimplemented map[string]int
}

// CallLogFile is the call log's name in the cloud's state directory.
const CallLogFile = "azure-calls.jsonl"

// OpenCallLog opens (or continues) the log at path.
func OpenCallLog(path string) (*CallLog, error) {
	f, err := privatefs.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("opening the Azure call log: %w", err)
	}
	return &CallLog{file: f, unimplemented: map[string]int{}}, nil
}

// Record appends r; a write that fails is lost, never the call.
func (l *CallLog) Record(r Record) {
	raw, _ := json.Marshal(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Unimplemented {
		l.unimplemented[r.Service+":"+r.Action]++
	}
	_, _ = l.file.Write(append(raw, '\n'))
}

// Unimplemented are the operations called that the face does not serve,
// with how often.
func (l *CallLog) Unimplemented() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.unimplemented)
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
		var r Record
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading the Azure call log %s: %w", path, err)
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
