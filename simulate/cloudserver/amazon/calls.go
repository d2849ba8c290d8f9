package amazon

import (
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
	"github.com/handover-sh/handover/simulate/cloudserver/calllog"
)

// CallLog is the AWS view of the calls (aws-calls.jsonl beside the cloud's
// audit), with the refused signatures and the actions the cloud does not
// serve.
type CallLog = calllog.Log[awsapi.Record]

// ActionCount is what the face answered for one action.
type ActionCount = calllog.ActionCount

// CallLogFile is the call log's name in the cloud's state directory.
const CallLogFile = "aws-calls.jsonl"

const callLogName = "the AWS call log"

// OpenCallLog opens (or continues) the log at path.
func OpenCallLog(path string) (*CallLog, error) {
	return calllog.Open[awsapi.Record](path, callLogName)
}

// SummarizeCalls counts the calls a call log at path recorded from since
// on, per action, sorted by service and action. A missing log is no calls.
func SummarizeCalls(path string, since time.Time) ([]ActionCount, error) {
	return calllog.Summarize[awsapi.Record](path, callLogName, since)
}
