package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/verify/checks"
)

// The JUnit XML format as CI systems (Jenkins, GitLab, GitHub actions)
// read it: testsuites > testsuite > testcase, failures with a message.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string `xml:"name,attr"`
	Tests     int    `xml:"tests,attr"`
	Failures  int    `xml:"failures,attr"`
	Errors    int    `xml:"errors,attr"`
	Skipped   int    `xml:"skipped,attr"`
	Time      string `xml:"time,attr"`
	Timestamp string `xml:"timestamp,attr,omitempty"`
	// Properties say what was judged and by which handover (About).
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes one testsuite per check and one testcase per subject;
// a failure carries every violation with its evidence. Every suite carries
// the report's About as properties, and its time is the window judged.
func WriteJUnit(w io.Writer, r Report) error {
	bySuite := map[string][]checks.Result{}
	for _, res := range r.Results {
		bySuite[res.Check] = append(bySuite[res.Check], res)
	}
	names := make([]string, 0, len(bySuite))
	for n := range bySuite {
		names = append(names, n)
	}
	sort.Strings(names)
	out := junitSuites{Name: "handover " + r.Title}
	props := junitPropertiesOf(r.About)
	for _, n := range names {
		s := junitSuite{Name: n, Time: seconds(r.End.Sub(r.Start)), Timestamp: r.Start.UTC().Format("2006-01-02T15:04:05"), Properties: props}
		for _, res := range bySuite[n] {
			c := junitCase{Name: res.Subject, Classname: "handover." + n, Time: seconds(caseTime(r, res)), SystemOut: res.Summary}
			if !res.Passed {
				c.Failure = &junitFailure{Type: n, Message: firstMessage(res), Text: evidenceText(res)}
				s.Failures++
			} else if res.Skipped != "" {
				c.Skipped = &junitSkipped{Message: res.Skipped}
				s.Skipped++
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		out.Suites = append(out.Suites, s)
		out.Tests += s.Tests
		out.Failures += s.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitPropertiesOf(a About) *junitProperties {
	ps := a.Properties()
	if len(ps) == 0 {
		return nil
	}
	out := &junitProperties{}
	for _, p := range ps {
		out.Property = append(out.Property, junitProperty(p))
	}
	return out
}

// caseTime is a test case's time. A check judges the whole window
// observed, so a pass took that window; a failure's time is how long its
// violations lasted (what a CI page shows beside a red test); a result
// not judged took none.
func caseTime(r Report, res checks.Result) time.Duration {
	switch {
	case res.Skipped != "" && res.Passed:
		return 0
	case res.Passed:
		return r.End.Sub(r.Start)
	}
	var d time.Duration
	for _, v := range res.Violations {
		if !v.From.IsZero() && v.To.After(v.From) {
			d += v.To.Sub(v.From)
		}
	}
	return d
}

// seconds is d as JUnit writes a time: seconds, to the millisecond.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(max(d, 0).Seconds(), 'f', 3, 64)
}

func firstMessage(r checks.Result) string {
	if len(r.Violations) == 0 {
		return r.Summary
	}
	msg := r.Violations[0].Message
	if len(r.Violations) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(r.Violations)-1)
	}
	return msg
}

func evidenceText(r checks.Result) string {
	var b strings.Builder
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "%s\n", v)
		if len(v.Sources) > 0 {
			fmt.Fprintf(&b, "  sources: %s\n", strings.Join(v.Sources, ", "))
		}
		for _, e := range v.Evidence {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	return b.String()
}
