package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

const routesErr = "Couldn't reconcile node routes: error listing routes: found multiple matching AWS route tables for AWS cluster: rehearsal"

// The latest line of each error, the lines folded into them counted, the
// most recent groups alone, newest last.
func TestLoggedErrors(t *testing.T) {
	evs := join(window(0, 200), []timeline.Event{
		logged(10, ccm, "route_controller.go:119", routesErr, ""),
		logged(40, ccm, "route_controller.go:119", routesErr, "2"),
		logged(50, kcm, "route_controller.go:119", routesErr, ""), // another manager: another error
		logged(60, ccm, "controller.go:298", "error processing service default/web", ""),
		logged(70, ccm, "route_controller.go:119", routesErr, "2"),
		logged(80, ccm, "route_controller.go:130", "other", ""),
		logged(300, ccm, "route_controller.go:119", routesErr, "2"), // outside
	})
	got := loggedErrors(evs, at(0), at(200), bySource("route_controller.go"), 2)
	// Three lines written, four folded into them: 7 in all.
	want := []string{
		"00:01:10.000 cloud-controller-manager logged (route_controller.go:119, 6 more since 00:00:10.000): " + routesErr,
		"00:01:20.000 cloud-controller-manager logged (route_controller.go:130): other",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("cited:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := loggedErrors(evs, at(0), at(200), bySource("route_controller.go"), 3); len(got) != 3 || !strings.Contains(got[0], kcm) {
		t.Fatalf("three groups: %q", got)
	}
	if got := loggedErrors(evs, at(0), at(200), bySource("node_controller.go"), 3); len(got) != 0 {
		t.Fatalf("no such error logged, cited %q", got)
	}
	// From 00:00:35 the first line is the one at 40 s, whose two repeats
	// came before it: 40 s's own and 70 s's with its two, 3 more since.
	if got := loggedErrors(evs, at(35), at(200), bySource("route_controller.go"), 2); len(got) != 2 || !strings.Contains(got[0], "3 more since 00:00:40.000") {
		t.Fatalf("from 35 s: %q", got)
	}
}

// A Service is named as a whole: default/web is not default/web-2.
func TestNamingAService(t *testing.T) {
	for msg, names := range map[string]bool{
		"error processing service default/web (retrying with exponential backoff)": true,
		`failed to ensure load balancer for service "default/web": throttled`:      true,
		"error processing service default/web-2 (retrying)":                        false,
		"error processing service xdefault/web":                                    false,
		"default/web":                                                              true,
		"":                                                                         false,
	} {
		if naming(web)("controller.go:298", msg) != names {
			t.Errorf("%q names %s: %t", msg, web, !names)
		}
	}
}
