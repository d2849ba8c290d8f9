package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var sampleAbout = About{Handover: "v0.3.0", Procedure: "taskdoc", From: "v1.30.14", To: "v1.31.4", Provider: "simulated"}

// Every suite says which handover judged it and what it judged; a case's
// time is the window judged, or for a failure how long its violations
// lasted; a suite's the window.
func TestJUnitPropertiesAndTimes(t *testing.T) {
	r := sampleReport()
	r.About = sampleAbout
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []junitProperty{{"handover-version", "v0.3.0"}, {"procedure", "taskdoc"}, {"from", "v1.30.14"}, {"to", "v1.31.4"}, {"provider", "simulated"}}
	for _, s := range got.Suites {
		if s.Properties == nil || !slices.Equal(s.Properties.Property, want) {
			t.Errorf("suite %s: properties %+v", s.Name, s.Properties)
		}
		if s.Time != "60.000" {
			t.Errorf("suite %s: time %s, want the 60 s observed", s.Name, s.Time)
		}
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil && c.Time != "5.000":
				t.Errorf("%s/%s failed for 5 s: time %s", s.Name, c.Name, c.Time)
			case c.Skipped != nil && c.Time != "0.000":
				t.Errorf("%s/%s was not judged: time %s", s.Name, c.Name, c.Time)
			case c.Failure == nil && c.Skipped == nil && c.Time != "60.000":
				t.Errorf("%s/%s judged 60 s: time %s", s.Name, c.Name, c.Time)
			}
		}
	}
	validateJUnitSchema(t, buf.Bytes())
}

// A report without an About has no properties: the suites stay as they were.
func TestJUnitWithoutAboutHasNoProperties(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<properties>") {
		t.Fatalf("properties with nothing to say:\n%s", buf.String())
	}
}

func TestSummaryAndPageNameTheirJudge(t *testing.T) {
	r := sampleReport()
	r.About = sampleAbout
	line := "Judged by handover v0.3.0; procedure taskdoc, v1.30.14 → v1.31.4, provider simulated."
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(md.String(), "\n", 6); len(head) < 5 || head[4] != line {
		t.Errorf("the summary's header lacks %q:\n%s", line, md.String())
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<p class="about">Judged by handover v0.3.0; procedure taskdoc, v1.30.14 → v1.31.4, provider simulated.</p>`) {
		t.Errorf("the page's header does not name its judge")
	}
	if got := (About{Procedure: "observed"}).Line(); got != "Procedure observed" {
		t.Errorf("a line without the version: %q", got)
	}
}

// A run that stopped before its checks leaves a JUnit with one failed
// case naming the phase and the error, and replaces an earlier run's
// summary.
func TestStoppedRunFailsInItsJUnit(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, sampleReport()); err != nil {
		t.Fatal(err)
	}
	r := Stopped("rehearsal of taskdoc", "images", errors.New("building kube-apiserver v1.30.14: exit status 2"), t0, t0.Add(90*time.Second), sampleAbout)
	if err := WriteAll(dir, r); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, JUnitFile))
	if err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Tests != 1 || got.Failures != 1 || len(got.Suites) != 1 {
		t.Fatalf("tests=%d failures=%d suites=%d:\n%s", got.Tests, got.Failures, len(got.Suites), raw)
	}
	c := got.Suites[0].Cases[0]
	if got.Suites[0].Name != SetupCheck || c.Name != "images" || c.Failure == nil ||
		c.Failure.Message != "building kube-apiserver v1.30.14: exit status 2" || c.Time != "90.000" {
		t.Fatalf("the setup case: %+v in %s", c, got.Suites[0].Name)
	}
	validateJUnitSchema(t, raw)
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**FAILED**", "| setup | images | **FAIL** | stopped at images, before any check judged: building kube-apiserver"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

// A run of a cluster's file on what handover builds says so under the
// verdict, with each approximation, and as JUnit properties.
func TestALikeRunSaysWhatItApproximated(t *testing.T) {
	a := sampleAbout
	a.Like, a.Approximated = "prod/rehearsal.yaml", []string{"from v1.30.2 on v1.30.14", "workers 40 scaled down to 2"}
	if got, want := a.Likeness(), "Rehearsed like prod/rehearsal.yaml, approximated: from v1.30.2 on v1.30.14; workers 40 scaled down to 2"; got != want {
		t.Errorf("Likeness %q, want %q", got, want)
	}
	ps := a.Properties()
	if !slices.Contains(ps, Property{"like", "prod/rehearsal.yaml"}) || !slices.Contains(ps, Property{"approximated", "from v1.30.2 on v1.30.14; workers 40 scaled down to 2"}) {
		t.Errorf("properties %+v", ps)
	}
	r := sampleReport()
	r.About = a
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"summary": md.String(), "page": page.String()} {
		if !strings.Contains(out, "Rehearsed like prod/rehearsal.yaml, approximated: from v1.30.2 on v1.30.14; workers 40 scaled down to 2.") {
			t.Errorf("the %s does not say what was approximated:\n%s", name, out)
		}
	}
	if (About{}).Likeness() != "" || sampleAbout.Likeness() != "" {
		t.Error("a run of no cluster's file says it was like one")
	}
}
