// Package reports renders the verdicts of a rehearsal: JUnit XML for CI
// gates, a Markdown summary, and an HTML report with an SVG timeline.
package reports
