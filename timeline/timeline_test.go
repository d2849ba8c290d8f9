package timeline

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := w.Write(Event{Time: at, Source: "runner", Kind: StepStart, Step: "grant"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(Event{Source: "runner", Kind: StepEnd, Step: "grant", Outcome: OK}); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[0].Time.Equal(at) || got[1].Time.IsZero() || got[1].Outcome != OK {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestReadErrorsNameTheLine(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      "{\"time\":\"2026-01-02T03:04:05Z\",\"source\":\"a\",\"kind\":\"k\"}\n\nnope\n",
		"unknown field": "\n\n{\"time\":\"2026-01-02T03:04:05Z\",\"source\":\"a\",\"kind\":\"k\",\"bogus\":1}\n",
		"no time":       "\n\n{\"source\":\"a\",\"kind\":\"k\"}\n",
		"two values":    "\n\n{\"time\":\"2026-01-02T03:04:05Z\",\"source\":\"a\",\"kind\":\"k\"} {}\n",
	} {
		_, err := Read(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("%s: want an error naming line 3, got %v", name, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"time\":\"2026-01-02T03:04:05Z\",\"source\":\"a\",\"kind\":\"k\"}\n"))
	f.Add([]byte("\n{\"time\":1}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := Read(bytes.NewReader(b))
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error without a line number: %v", err)
			}
			return
		}
		for _, e := range evs {
			if e.Time.IsZero() || e.Kind == "" || e.Source == "" {
				t.Fatalf("accepted an incomplete event: %+v", e)
			}
		}
	})
}
