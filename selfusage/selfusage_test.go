package selfusage

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

func TestStatFieldsWithSpacesInTheCommand(t *testing.T) {
	line := "42 (handover simcloud) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 30 20 20 0 9 0 100 0 0"
	f, err := statFields(line)
	if err != nil || f[13] != "250" || f[16] != "20" {
		t.Fatalf("fields = %v, %v", f, err)
	}
	if _, err := statFields("garbage"); err == nil {
		t.Fatal("want an error for a malformed line")
	}
}

func TestParsePressure(t *testing.T) {
	in := "some avg10=94.00 avg60=80.10 avg300=50.00 total=123456789\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
	if got := parsePressure(in); got != 123456789 {
		t.Fatalf("pressure = %v", got)
	}
}

func TestReadSelf(t *testing.T) {
	// Burn a little CPU so the reading cannot be zero.
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	if u := Read(0); u.CPU <= 0 || x == 0 {
		t.Fatalf("own CPU = %v", u.CPU)
	}
	if u := Read(1 << 30); u.CPU != 0 {
		t.Fatalf("a missing process used %v s", u.CPU)
	}
}

func at(s int) time.Time { return time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC) }

func usage(s int, cpu, wall, stall string) timeline.Event {
	return timeline.Event{Time: at(s), Kind: timeline.SelfUsage, Attrs: map[string]string{"cpu_s": cpu, "wall_s": wall, "pressure_us": stall}}
}

func TestSummarize(t *testing.T) {
	evs := []timeline.Event{
		usage(0, "30", "60", "0"), // 60 s of creation before the timeline
		{Time: at(10), Kind: timeline.RunStart},
		usage(10, "31", "70", "1000000"),
		usage(110, "36", "170", "51000000"),
		{Time: at(110), Kind: timeline.RunEnd},
		usage(120, "37", "180", "52000000"),
	}
	s, ok := Summarize(evs)
	if !ok || !s.HasProcedure {
		t.Fatalf("Summarize = %+v, %v", s, ok)
	}
	if s.Procedure.CorePct != 5 || s.Procedure.PressurePct != 50 {
		t.Fatalf("procedure share = %+v, want 5 %% of a core and 50 %% pressure", s.Procedure)
	}
	if got := s.Whole.CorePct; got < 20.5 || got > 20.6 { // 37 s of 180 s
		t.Fatalf("whole-run share = %v", got)
	}
	if line := s.String(); !strings.Contains(line, "5.0 % during the procedure") {
		t.Fatalf("line = %q", line)
	}
	if !s.HasSetup || s.Setup.CorePct != 50 || s.Observed.CorePct < 5.8 || s.Observed.CorePct > 5.9 { // 30 s of 60 s, then 7 s of 120 s
		t.Fatalf("setting up %+v, observing %+v: want 50 %% and 5.8 %% of a core", s.Setup, s.Observed)
	}
	want := "over the whole run (3m0s; 50.0 % over the 1m0s setting up before the timeline, images and cluster included, 5.8 % over the 2m0s observed)"
	if line := s.String(); !strings.Contains(line, want) {
		t.Fatalf("line = %q, want %q", line, want)
	}
	if _, ok := Summarize(evs[:1]); ok {
		t.Fatal("one sample is no span")
	}
}

// A process that sampled from its start (handover observe) set nothing up
// worth telling apart.
func TestSummarizeWithoutSetup(t *testing.T) {
	s, ok := Summarize([]timeline.Event{usage(0, "0.1", "0.2", "0"), usage(60, "3", "60.2", "0")})
	if !ok || s.HasSetup || strings.Contains(s.String(), "setting up") {
		t.Fatalf("%+v: %s", s, s)
	}
}

func TestSamplerWritesStartAndStop(t *testing.T) {
	var buf bytes.Buffer
	s := Start(t.Context(), timeline.NewWriter(&buf), time.Hour, func() []int { return []int{1 << 30} })
	s.Stop()
	evs, err := timeline.Read(&buf)
	if err != nil || len(evs) != 2 || evs[0].Kind != timeline.SelfUsage || evs[1].Attrs["cpu_s"] == "" {
		t.Fatalf("%v %+v", err, evs)
	}
}

func TestVmRSS(t *testing.T) {
	if got := vmRSS("Name:\thandover\nVmPeak:\t 9000 kB\nVmRSS:\t  2048 kB\nThreads: 9\n"); got != 2048<<10 {
		t.Fatalf("VmRSS 2048 kB read as %d bytes", got)
	}
	if got := vmRSS("Name:\tzombie\n"); got != 0 {
		t.Fatalf("no VmRSS line read as %d", got)
	}
	if Read(0).RSS <= 0 {
		t.Fatal("this process has no resident memory?")
	}
}

func TestSummarizePeakMemory(t *testing.T) {
	a, b := usage(0, "1", "10", "0"), usage(10, "2", "20", "0")
	a.Attrs["rss_bytes"], b.Attrs["rss_bytes"] = strconv.Itoa(30<<20), strconv.Itoa(10<<20)
	s, ok := Summarize([]timeline.Event{a, b})
	if !ok || s.PeakRSS != 30<<20 || !strings.Contains(s.String(), "30 MiB resident at most") {
		t.Fatalf("%+v: %s", s, s.String())
	}
	if s, _ := Summarize([]timeline.Event{usage(0, "1", "10", "0"), usage(10, "2", "20", "0")}); strings.Contains(s.String(), "resident") {
		t.Fatalf("memory reported from samples without it: %s", s)
	}
}

// A sampler started from a mark counts from it: the wall time since the
// mark, and only the CPU used after it, as a rehearsal run after others in
// one process (a suite) must.
func TestSamplerCountsFromItsMark(t *testing.T) {
	for before := processCPU(0); processCPU(0) < before+0.1; { // some CPU before the mark
	}
	mark := Now()
	mark.t = mark.t.Add(-time.Minute)
	var buf bytes.Buffer
	s := StartFrom(t.Context(), timeline.NewWriter(&buf), time.Hour, nil, mark)
	s.Stop()
	evs, err := timeline.Read(&buf)
	if err != nil || len(evs) != 2 {
		t.Fatalf("%v %+v", err, evs)
	}
	wall, _ := strconv.ParseFloat(evs[1].Attrs["wall_s"], 64)
	cpu, _ := strconv.ParseFloat(evs[1].Attrs["cpu_s"], 64)
	if wall < 60 || cpu > processCPU(0)-0.1 || cpu < 0 {
		t.Errorf("wall %.2f s (want ≥ 60, from the mark), cpu %.2f s of %.2f (want what came after the mark)", wall, cpu, processCPU(0))
	}
}
