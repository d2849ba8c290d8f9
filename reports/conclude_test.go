package reports

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// A timeline no run writes (a step failed, its run ended ok) is not
// judged: Conclude, and so `handover report`, fails naming its line.
func TestConcludeRefusesAnImpossibleTimeline(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "timeline.jsonl")
	w, err := timeline.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now().UTC().Add(-time.Hour)
	run := func(s float64, e timeline.Event) {
		e.Time, e.Source, e.Procedure = from.Add(time.Duration(s*float64(time.Second))), "runner", "taskdoc"
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	run(0, timeline.Event{Kind: timeline.RunStart, Message: "Migrate",
		Attrs: map[string]string{timeline.RunSteps: "grant", timeline.RunFrom: "grant", timeline.RunUntil: "grant"}})
	run(1, timeline.Event{Kind: timeline.StepStart, Step: "grant", Index: 1})
	run(2, timeline.Event{Kind: timeline.StepEnd, Step: "grant", Index: 1, Outcome: timeline.Failed})
	run(3, timeline.Event{Kind: timeline.RunEnd, Outcome: timeline.OK})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Conclude(path, dir, About{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `timeline line 4: run.end ok, but step "grant" ended failed on line 3`) {
		t.Fatalf("want the line refused, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkdownFile)); err == nil {
		t.Fatal("a report was written for a timeline no run writes")
	}
}
