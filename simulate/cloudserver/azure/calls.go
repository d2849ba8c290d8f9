package azure

import (
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver/calllog"
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

// The log's reading of a record (calllog.Entry).
func (r Record) At() time.Time                { return r.Time }
func (r Record) Of() (service, action string) { return r.Service, r.Action }
func (r Record) Refused() bool                { return r.Status >= 400 }
func (r Record) NotServed() bool              { return r.Unimplemented }

// CallLog is the Azure view of the calls (azure-calls.jsonl beside the
// cloud's audit), with the refused tokens and the operations the face does
// not serve.
type CallLog = calllog.Log[Record]

// ActionCount is what the face answered for one action.
type ActionCount = calllog.ActionCount

// CallLogFile is the call log's name in the cloud's state directory.
const CallLogFile = "azure-calls.jsonl"

const callLogName = "the Azure call log"

// OpenCallLog opens (or continues) the log at path.
func OpenCallLog(path string) (*CallLog, error) {
	return calllog.Open[Record](path, callLogName)
}

// SummarizeCalls counts the calls a call log at path recorded from since
// on, per action, sorted by service and action. A missing log is no calls.
func SummarizeCalls(path string, since time.Time) ([]ActionCount, error) {
	return calllog.Summarize[Record](path, callLogName, since)
}
