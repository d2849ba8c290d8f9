package rehearsal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/reports"
)

// Each phase before the checks classes its failure: the machine's, the
// user's flags, or no verdict.
func TestPhasesClassTheirFailures(t *testing.T) {
	cause := errors.New("exit status 1")
	for _, c := range []struct {
		ph   phase
		want exitcode.Code
	}{
		{phasePrune, exitcode.Infrastructure}, {phaseImages, exitcode.Infrastructure}, {phaseFlags, exitcode.BadInput},
		{phaseCluster, exitcode.Infrastructure}, {phaseSetup, exitcode.Infrastructure}, {phaseChecks, exitcode.Red},
	} {
		err := fmt.Errorf("rehearsal: %w", c.ph.fail(cause))
		if got := exitcode.Of(err); got != c.want || stoppedIn(err) != c.ph.name || !errors.Is(err, cause) {
			t.Errorf("%s: exit %d in %q, want %d", c.ph.name, got, stoppedIn(err), c.want)
		}
	}
	if phaseImages.fail(nil) != nil {
		t.Error("no failure, yet an error")
	}
	if got := stoppedIn(errors.Join(errors.New("step 3"), phaseChecks.fail(cause))); got != "checks" {
		t.Errorf("the phase among several errors: %q", got)
	}
}

// A rehearsal killed while building its images (its context cancelled)
// still leaves a junit.xml whose one case fails, naming the phase and the
// error, with the run's properties.
func TestAStoppedRehearsalLeavesAFailingJUnit(t *testing.T) {
	out := t.TempDir()
	about := reports.About{Handover: "v0.3.0", Procedure: "taskdoc", From: "v1.30.14", To: "v1.31.4", Provider: "simulated"}
	cause := phaseImages.fail(fmt.Errorf("building kube-apiserver v1.30.14: %w", errors.New("context canceled")))
	err := Stopped(out, about, stoppedIn(cause), time.Now().Add(-time.Minute), cause, log.NoopLogger{})
	if err != cause {
		t.Fatalf("Stopped returned %v, not the error that stopped the run", err)
	}
	raw, rerr := os.ReadFile(filepath.Join(out, reports.JUnitFile))
	if rerr != nil {
		t.Fatal(rerr)
	}
	for _, want := range []string{`<testsuites name="handover rehearsal of taskdoc" tests="1" failures="1">`,
		`<testcase name="images" classname="handover.setup" time="60.`, `<failure message="building kube-apiserver v1.30.14: context canceled" type="setup">`,
		`<property name="handover-version" value="v0.3.0"></property>`, `<property name="from" value="v1.30.14"></property>`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("junit.xml lacks %s:\n%s", want, raw)
		}
	}
}
