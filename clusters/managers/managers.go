// Package managers knows where the controller managers of a node serve and
// how to read what they say: one table of ports and one /healthz?verbose
// parser, shared by the procedures' waits and the observers, so the two
// can never read the same answer differently.
package managers

import (
	"regexp"
	"sort"
	"strings"
)

// The managers, by the names of their binaries (which are also the
// components a LeaderMigrationConfiguration names: migrate/lmconfig).
const (
	KCM = "kube-controller-manager"
	CCM = "cloud-controller-manager"
)

// Ports are the secure ports each manager serves /healthz and /metrics on,
// on its node's 127.0.0.1.
var Ports = map[string]string{KCM: "10257", CCM: "10258"}

// Manager names a client of the API as a manager from the name its user
// agent starts with (which the API server also records as its field
// manager): kube-controller-manager, or any cloud's cloud-controller-manager
// (aws-cloud-controller-manager, openstack-cloud-controller-manager, …),
// which all run the same controllers of k8s.io/cloud-provider.
func Manager(binary string) (string, bool) {
	switch {
	case binary == KCM:
		return KCM, true
	case strings.HasSuffix(binary, CCM):
		return CCM, true
	}
	return "", false
}

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

// ShortNames maps the names the cloud controllers had before 1.28 (their
// /healthz checks then, their running_managed_controllers label in every
// minor) to the canonical names leader migration uses from 1.28 on.
var ShortNames = map[string]string{
	"service":              "service-lb-controller",
	"route":                "node-route-controller",
	"cloud-node-lifecycle": "cloud-node-lifecycle-controller",
	"cloud-node":           "cloud-node-controller",
	"nodeipam":             "node-ipam-controller",
}

// Controllers reads a /healthz?verbose body: every started controller adds
// a check named after it, so each check whose name ends in "controller" (or
// is a cloud controller's pre-1.28 name, read as its canonical one) is a
// started controller, mapped to whether its check passes. A controller
// whose check fails has still started, and still acts.
func Controllers(body string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		m := checkLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		name := m[2]
		if c, ok := ShortNames[name]; ok {
			name = c
		}
		if strings.HasSuffix(name, "controller") {
			out[name] = m[1] == "+"
		}
	}
	return out
}
