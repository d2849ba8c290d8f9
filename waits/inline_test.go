package waits

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// inlineWait finds a duration literal where a wait's bound goes: a poll's
// timeout, a context's deadline, a timer or a sleep.
var inlineWait = regexp.MustCompile(`PollUntilContextTimeout\([^,]+, [^,]+, [0-9]|WithTimeout\([^,]+, [0-9]|time\.After\([0-9]|time\.Sleep\([0-9]`)

// notWaits are the literals that bound something other than a wait a
// slower or faster cluster would change: one request, a pause between
// retries, or a shutdown (docs/adr/0004). Keyed by file and the line's
// text.
var notWaits = map[string]string{
	"clusters/engine/exec.go: case <-time.After(20 * time.Millisecond):":                                                 "the pause between reads of an exec's exit status",
	"clusters/kindcluster/removenode.go: dctx, cancel := context.WithTimeout(ctx, 2*time.Second)":                        "one dial to the API server port",
	"migrate/flagcheck.go: ctx, cancel := context.WithTimeout(ctx, 30*time.Second)":                                      "one run of a manager's --help",
	"cmd/handover/simcloud.go: sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)":                 "the cloud's HTTP server shutting down",
	"cmd/handover-registry/main.go: sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)":            "the registry's HTTP server shutting down",
	"cmd/handover-credential-provider/main.go: ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)": "one token call of the kubelet's plugin (the kubelet bounds the plugin too)",
	"verify/observe/managercheck.go: case <-time.After(2 * time.Second):":                                                "the pause before asking a refusing manager again",
	"verify/observe/kube.go: cctx, cancel := context.WithTimeout(ctx, 2*time.Second)":                                    "one question to the cloud about a deleted Node's instance",
	"verify/observe/observer.go: ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)":               "the end snapshot's two lists",
	"simulate/load/warnings.go: ctx, cancel := context.WithTimeout(ctx, 5*time.Second)":                                  "one list of a Service's events, to say why it got no address",
}

// Every wait is a row of the table: a duration literal where a wait's
// bound goes is found here unless it is listed, with why, as no wait.
func TestNoInlineWaits(t *testing.T) {
	root := filepath.Join("..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), "_") || strings.HasPrefix(d.Name(), ".") && rel != "." || rel == filepath.Join("clusters", "nodeimage", "modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(raw), "\n") {
			if !inlineWait.MatchString(line) {
				continue
			}
			key := filepath.ToSlash(rel) + ": " + strings.TrimSpace(line)
			if _, ok := notWaits[key]; ok {
				seen[key] = true
				continue
			}
			t.Errorf("%s:%d: a wait with its bound inline (%s): register it in the waits table and read it with waits.Of, or list it in notWaits with why it is no wait",
				rel, i+1, strings.TrimSpace(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range notWaits {
		if !seen[key] {
			t.Errorf("notWaits lists %q, which is no longer there: remove it", key)
		}
	}
}
