package rancher

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate"
)

// Version is a distribution's Kubernetes version and the upstream one it
// is a build of.
type Version struct {
	Given    string // as the file writes it: v1.27.4+rke2r1
	Upstream string // v1.27.4
	Stripped string // what was taken off: +rke2r1
	Distro   string // whose suffix it was: RKE2
	At       Where
	note     string // the distribution's note
}

// suffix is how a distribution marks its builds of an upstream release.
type suffix struct {
	distro  string
	pattern string
	note    string // what a rehearsal of it should know
}

// suffixes are each procedure's files' version suffixes: RKE2's and K3s's
// releases are v1.27.4+rke2r1 and v1.27.4+k3s1 (a provisioning Cluster
// names either), RKE's v1.26.13-rancher1-1.
var suffixes = map[string][]suffix{
	migrate.RKE2: {{"RKE2", `\+rke2r\d+`, ""}, {"K3s", `\+k3s\d+`, "a K3s cluster: Rancher's runbooks are written for RKE2, whose procedure this rehearses"}},
	migrate.RKE:  {{"RKE", `-rancher\d+(-\d+)?`, ""}},
}

var upstream = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)`)

// readVersion reads the version in f as procedure's files write it.
func readVersion(f field, procedure string) (Version, error) {
	given, err := f.str()
	if err != nil {
		return Version{}, err
	}
	v := Version{Given: given, At: f.at()}
	base := upstream.FindString(given)
	if base == "" {
		return v, f.errorf("%q is not a Kubernetes version (%s)", given, versionForms(procedure))
	}
	rest := strings.TrimPrefix(given, base)
	v.Upstream = "v" + strings.TrimPrefix(base, "v")
	if rest == "" {
		return v, nil
	}
	for _, s := range suffixes[procedure] {
		if regexp.MustCompile(`^` + s.pattern + `$`).MatchString(rest) {
			v.Stripped, v.Distro, v.note = rest, s.distro, s.note
			return v, nil
		}
	}
	return v, f.errorf("%q is not a Kubernetes version (%s)", given, versionForms(procedure))
}

// versionForms says how procedure's files write a version.
func versionForms(procedure string) string {
	forms := []string{"vMAJOR.MINOR.PATCH"}
	for _, s := range suffixes[procedure] {
		forms = append(forms, fmt.Sprintf("with %s's %s", s.distro, strings.ReplaceAll(s.pattern, `\d+`, "N")))
	}
	return strings.ReplaceAll(strings.Join(forms, ", or "), `\`, "")
}

// notes are the distribution's note, and whether handover has a node
// image of the version: if not, the one of its minor that it has, for the
// user to choose (the rehearsal keeps the cluster's version).
func (v Version) notes() []Note {
	var out []Note
	if v.note != "" {
		out = append(out, Note{At: v.At, Text: v.note})
	}
	if _, err := nodeimage.Lookup(v.Upstream); err != nil {
		text := fmt.Sprintf("handover has no node image of %s", v.Upstream)
		if near := sameMinor(v.Upstream); near != "" {
			text += fmt.Sprintf("; of its minor it builds %s: write that version to rehearse the nearest patch", near)
		} else {
			text += fmt.Sprintf("; it builds %s", strings.Join(nodeimage.Known(), ", "))
		}
		out = append(out, Note{At: v.At, Text: text + " (rehearse refuses the version as it is)"})
	}
	return out
}

// sameMinor is the version handover builds of v's minor, or "".
func sameMinor(v string) string {
	want, err := version.ParseGeneric(v)
	if err != nil {
		return ""
	}
	for _, k := range nodeimage.Known() {
		if have := version.MustParseGeneric(k); have.Major() == want.Major() && have.Minor() == want.Minor() {
			return k
		}
	}
	return ""
}

// compare orders two upstream versions (-1, 0, 1).
func compare(a, b string) int {
	va, ea := version.ParseGeneric(a)
	vb, eb := version.ParseGeneric(b)
	if ea != nil || eb != nil {
		return strings.Compare(a, b)
	}
	switch {
	case va.LessThan(vb):
		return -1
	case vb.LessThan(va):
		return 1
	}
	return 0
}

// minors is how many minors b is past a (negative: before it).
func minors(a, b string) int {
	va, ea := version.ParseGeneric(a)
	vb, eb := version.ParseGeneric(b)
	if ea != nil || eb != nil || va.Major() != vb.Major() {
		return 0
	}
	return int(vb.Minor()) - int(va.Minor())
}
