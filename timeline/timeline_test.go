package timeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	at := time.Now().UTC().Add(-time.Minute)
	for _, e := range []Event{{Time: at, Source: "runner", Kind: RunStart}, {Source: "runner", Kind: StepStart, Step: "grant", Index: 1},
		{Source: "runner", Kind: StepEnd, Step: "grant", Index: 1, Outcome: OK}} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !got[0].Time.Equal(at) || got[2].Time.IsZero() || got[2].Outcome != OK {
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

// FuzzRead: Read never panics, names the line of what it refuses, and
// what it accepts holds the invariants.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"time\":\"2026-01-02T03:04:05Z\",\"source\":\"a\",\"kind\":\"k\"}\n"))
	f.Add([]byte("\n{\"time\":1}\n"))
	f.Add([]byte(`{"time":"2026-01-02T03:04:05Z","source":"runner","kind":"run.start","message":"m"}
{"time":"2026-01-02T03:04:06Z","source":"runner","kind":"step.start","step":"a","index":1}
{"time":"2026-01-02T03:04:07Z","source":"runner","kind":"step.end","step":"a","index":1,"outcome":"ok"}
{"time":"2026-01-02T03:04:08Z","source":"health","kind":"health","attrs":{"up":"true"}}
{"time":"2026-01-02T03:04:06Z","source":"probe","kind":"probe","attrs":{"kind":"api","ok":"true","ms":"3"}}
{"time":"2026-01-02T03:04:09Z","source":"runner","kind":"run.end","outcome":"ok"}
`))
	// A short real run, and it joined to itself: the fuzzer minimizes
	// each new input it finds, for up to a minute, so large seeds stall it.
	var buf bytes.Buffer
	p := newProcess(f, &buf, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	p.run("Migrate", OK, false, "grant")
	f.Add(buf.Bytes())
	f.Add(bytes.Repeat(buf.Bytes(), 2))
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
		if err := invariants(evs, time.Now()); err != nil {
			t.Fatalf("accepted, but %v", err)
		}
	})
}

func TestCreateRefusesALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "timeline.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if w, err := Create(link); err == nil {
		w.Close()
		t.Fatal("Create followed a symbolic link")
	}
	if raw, _ := os.ReadFile(victim); string(raw) != "precious" {
		t.Fatalf("victim changed: %q", raw)
	}
}

// ReadFile refuses at once what is not a timeline's file: it neither
// waits on a FIFO nor reads a device or a file past MaxFile.
func TestReadFileRefusesAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.jsonl")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxFile+1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	for path, says := range map[string]string{
		fifo:        "is a named pipe (FIFO), not a regular file",
		"/dev/zero": "is a character device, not a regular file",
		huge:        "more than the 256 MiB handover reads",
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFileFrom(path, 0); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), says) {
				t.Errorf("%s: %v, want it to say %q", path, err, says)
			}
		case <-time.After(time.Second):
			t.Fatalf("%s: still reading after a second", path)
		}
	}
}
