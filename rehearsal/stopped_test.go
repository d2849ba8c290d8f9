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

	"github.com/handover-sh/handover/clusters/kindcluster"
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

// A rehearsal refused as bad input leaves an earlier run's reports as they
// were, and says so; into a fresh directory it still writes its junit.xml.
// One that stopped for the machine's sake replaces them, as any run does.
func TestARefusalKeepsAnEarlierRunsReports(t *testing.T) {
	refused := exitcode.AsBadInput(errors.New(`--load "extreme": use one of heavy, light, moderate, none`))
	broken := phaseImages.fail(errors.New("debootstrap failed"))
	earlier := "<testsuites name=\"the earlier run\"></testsuites>\n"
	for _, c := range []struct {
		name      string
		err       error
		earlier   bool
		keeps     bool
		errSaying string
	}{
		{"a refusal after a run", refused, true, true, "holds an earlier run's junit.xml, timeline.jsonl: left as they were"},
		{"a refusal into a fresh directory", refused, false, false, ""},
		{"a broken machine after a run", broken, true, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			junit := filepath.Join(out, reports.JUnitFile)
			if c.earlier {
				for _, f := range []string{junit, filepath.Join(out, timelineFile)} {
					if err := os.WriteFile(f, []byte(earlier), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			err := Stopped(out, reports.About{}, "input", time.Now(), c.err, log.NoopLogger{})
			if !errors.Is(err, c.err) || exitcode.Of(err) != exitcode.Of(c.err) || !strings.Contains(err.Error(), c.errSaying) {
				t.Fatalf("Stopped returned %v (exit %d)", err, exitcode.Of(err))
			}
			raw, rerr := os.ReadFile(junit)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if kept := string(raw) == earlier; kept != c.keeps {
				t.Errorf("earlier junit.xml kept: %v, want %v:\n%s", kept, c.keeps, raw)
			}
		})
	}
}

// A cluster name already taken is the user's input, in whichever phase it
// is found; any other failure keeps the phase's class.
func TestATakenNameIsBadInput(t *testing.T) {
	taken := fmt.Errorf("creating: %w", kindcluster.ErrClusterExists)
	if got := exitcode.Of(phaseCluster.fail(nameInput(taken))); got != exitcode.BadInput {
		t.Errorf("a taken name exits %d, want %d", got, exitcode.BadInput)
	}
	if got := exitcode.Of(phaseCluster.fail(nameInput(errors.New("kind: exit status 1")))); got != exitcode.Infrastructure {
		t.Errorf("a failed create exits %d, want %d", got, exitcode.Infrastructure)
	}
}
