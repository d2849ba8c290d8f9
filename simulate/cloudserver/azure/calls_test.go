package azure_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver/azure"
)

// The call log counts each action's calls and refusals, and never holds a
// token.
func TestTheCallLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, azure.CallLogFile)
	log, err := azure.OpenCallLog(path)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, dir, func(o *azure.Options) { o.Record = log.Record })
	tok := r.token(t, ccmClient)
	r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines/c-worker", "2022-03-01", nil, nil)
	r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines/gone", "2022-03-01", nil, nil)
	r.arm(t, tok, http.MethodGet, "Microsoft.Network/applicationGateways", "2022-07-01", nil, nil)
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), tok) {
		t.Errorf("the call log holds the token")
	}
	counts, err := azure.SummarizeCalls(path, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]azure.ActionCount{
		"arm:Microsoft.Compute/virtualMachines/read":     {Service: "arm", Action: "Microsoft.Compute/virtualMachines/read", Calls: 2, Refused: 1},
		"arm:Microsoft.Network/applicationGateways/read": {Service: "arm", Action: "Microsoft.Network/applicationGateways/read", Calls: 1, Refused: 1, Unimplemented: true},
		"imds:/metadata/identity/oauth2/token":           {Service: "imds", Action: "/metadata/identity/oauth2/token", Calls: 1},
	}
	for _, c := range counts {
		if w, ok := want[c.Service+":"+c.Action]; !ok || w != c {
			t.Errorf("%+v, want %+v", c, w)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("%d actions counted, want %d: %+v", len(counts), len(want), counts)
	}
}
