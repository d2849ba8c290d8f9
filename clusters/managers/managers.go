// Package managers knows where the controller managers of a node serve and
// how to read what they say: one table of ports and one /healthz?verbose
// parser, shared by the procedures' waits and the observers, so the two
// can never read the same answer differently.
package managers

import (
	"regexp"
	"sort"
	"strings"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Ports are the secure ports each manager serves /healthz and /metrics on,
// on its node's 127.0.0.1.
var Ports = map[string]string{lmconfig.KCM: "10257", lmconfig.CCM: "10258"}

// Names lists the managers, sorted.
func Names() []string {
	out := make([]string, 0, len(Ports))
	for n := range Ports {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// checkLine is one check of a verbose /healthz: "[+]name ok" or
// "[-]name failed: reason withheld".
var checkLine = regexp.MustCompile(`^\[([+-])\]([A-Za-z0-9-]+)(?: |$)`)

// Controllers reads a /healthz?verbose body: every started controller adds
// a check named after it, so each check whose name ends in "controller" is
// a started controller, mapped to whether its check passes. A controller
// whose check fails has still started, and still acts.
func Controllers(body string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		m := checkLine.FindStringSubmatch(strings.TrimSpace(l))
		if m != nil && strings.HasSuffix(m[2], "controller") {
			out[m[2]] = m[1] == "+"
		}
	}
	return out
}
