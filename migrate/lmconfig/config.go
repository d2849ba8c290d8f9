// Package lmconfig reads and writes LeaderMigrationConfiguration files, the
// controllermanager.config.k8s.io/v1alpha1 type both controller managers read
// with --leader-migration-config.
package lmconfig

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// API identity of the file, as the managers' decoders require it.
const (
	APIVersion = "controllermanager.config.k8s.io/v1alpha1"
	Kind       = "LeaderMigrationConfiguration"
)

// APIVersions are every version the managers' configuration scheme
// registers the kind under (k8s.io/controller-manager/pkg/leadermigration/
// config, 1.30 and 1.31 alike); the fields are the same in each.
var APIVersions = []string{APIVersion, "controllermanager.config.k8s.io/v1beta1", "controllermanager.config.k8s.io/v1"}

// Component values of a controllerLeaders entry.
const (
	KCM      = "kube-controller-manager"
	CCM      = "cloud-controller-manager"
	Wildcard = "*"
)

// DefaultLeaderName is the migration lease the documents and the built-in
// default configuration use.
const DefaultLeaderName = "cloud-provider-extraction-migration"

// Config mirrors the upstream type field for field.
type Config struct {
	Kind              string             `json:"kind"`
	APIVersion        string             `json:"apiVersion"`
	LeaderName        string             `json:"leaderName"`
	ResourceLock      string             `json:"resourceLock"`
	ControllerLeaders []ControllerLeader `json:"controllerLeaders"`

	// Unknown are the fields of a parsed file the type does not have, as
	// paths (controllerLeaders[1].compnent): the managers' decoder drops
	// them without a word up to 1.31 and refuses the file from 1.32 (the
	// lint says which, per version).
	Unknown []string `json:"-"`
	// Duplicates are the keys a parsed file gives twice in one mapping, as
	// key and line (leaderName (line 4)): up to 1.31 the managers keep the
	// last value, as Parse does; from 1.32 they refuse the file.
	Duplicates []string `json:"-"`

	// raw is the file as a user wrote it: installed byte for byte.
	raw []byte
}

// ControllerLeader assigns one controller to the component that runs it.
type ControllerLeader struct {
	Name      string `json:"name"`
	Component string `json:"component"`
}

// New is a configuration assigning every controller to component.
func New(component string, controllers ...string) *Config {
	c := &Config{Kind: Kind, APIVersion: APIVersion, LeaderName: DefaultLeaderName, ResourceLock: "leases"}
	for _, n := range controllers {
		c.ControllerLeaders = append(c.ControllerLeaders, ControllerLeader{Name: n, Component: component})
	}
	return c
}

// Clone is a deep copy.
// A changed clone renders its fields, not the file it was parsed from.
func (c *Config) Clone() *Config {
	out := *c
	out.ControllerLeaders = append([]ControllerLeader(nil), c.ControllerLeaders...)
	out.Unknown, out.Duplicates, out.raw = nil, nil, nil
	return &out
}

// Parse decodes a configuration as the managers up to 1.31 do: leniently,
// an unknown field ignored and a key given twice taking its last value
// (both kept, in Unknown and Duplicates, for the lint to judge per
// version: from 1.32 the managers decode strictly and refuse either); but a
// file of another kind or API version is an error, because every version's
// decoder refuses it and the manager does not start.
func Parse(b []byte) (*Config, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("empty file: a %s needs kind, apiVersion, leaderName, resourceLock and controllerLeaders", Kind)
	}
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, fmt.Errorf("not a valid %s: %w", Kind, err)
	}
	// Field names match exactly, as in the managers' decoder (encoding/json
	// would take LeaderName for leaderName; the managers drop it).
	var c Config
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &c); err != nil {
		return nil, fmt.Errorf("not a valid %s: %w", Kind, err)
	}
	if c.Kind != Kind || !slices.Contains(APIVersions, c.APIVersion) {
		return nil, fmt.Errorf("is kind %q, apiVersion %q: not a %s (the managers decode kind: %s with apiVersion %s)",
			c.Kind, c.APIVersion, Kind, Kind, strings.Join(APIVersions, ", "))
	}
	var fields map[string]any
	if err := yaml.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("not a valid %s: %w", Kind, err)
	}
	c.Unknown = unknownFields(fields)
	// What a strict decoder refuses beyond unknown fields: keys given
	// twice (k8s.io/apimachinery v0.32.6 pkg/runtime/serializer/json/
	// json.go: the strict YAML serializer runs this YAMLToJSONStrict, the
	// lenient one YAMLToJSON alone, which keeps the last value). The
	// versions are migrate/lint's history.go.
	if _, err := yaml.YAMLToJSONStrict(b); err != nil {
		c.Duplicates = duplicates(err)
	}
	c.raw = bytes.Clone(b)
	return &c, nil
}

// unknownFields lists the keys of a decoded file the type has no field for.
// Keys are matched exactly, as the managers' case-sensitive decoder does.
func unknownFields(fields map[string]any) []string {
	var out []string
	for k, v := range fields {
		switch k {
		case "kind", "apiVersion", "leaderName", "resourceLock":
		case "controllerLeaders":
			entries, _ := v.([]any)
			for i, e := range entries {
				m, _ := e.(map[string]any)
				for ek := range m {
					if ek != "name" && ek != "component" {
						out = append(out, fmt.Sprintf("controllerLeaders[%d].%s", i, ek))
					}
				}
			}
		default:
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// duplicateKey is one line of the YAML decoder's error for a key given twice.
var duplicateKey = regexp.MustCompile(`line (\d+): key (.+) already set in map`)

// duplicates are the keys a strict YAML decoding error names, as
// "key (line N)"; an error of another form is kept whole.
func duplicates(err error) []string {
	var out []string
	for _, m := range duplicateKey.FindAllStringSubmatch(err.Error(), -1) {
		key := m[2]
		if k, uerr := strconv.Unquote(key); uerr == nil {
			key = k
		}
		out = append(out, fmt.Sprintf("%s (line %s)", key, m[1]))
	}
	if len(out) == 0 {
		out = append(out, err.Error())
	}
	return out
}

// ReadFile parses the configuration at path: a regular file of at most
// boundedfile.ConfigLimit, the most the ConfigMap or Secret that carries it
// to a Rancher cluster's managers holds.
func ReadFile(path string) (*Config, error) {
	b, err := boundedfile.Read(path, boundedfile.ConfigLimit)
	if err != nil {
		return nil, err
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// YAML is the file the managers read: a parsed file as it was written, a
// built one rendered.
func (c *Config) YAML() string {
	if c.raw != nil {
		return string(c.raw)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "kind: %s\napiVersion: %s\nleaderName: %s\nresourceLock: %s\ncontrollerLeaders:\n",
		c.Kind, c.APIVersion, c.LeaderName, c.ResourceLock)
	for _, l := range c.ControllerLeaders {
		fmt.Fprintf(&b, "  - name: %s\n    component: %s\n", l.Name, scalar(l.Component))
	}
	return b.String()
}

// Owner is the component c assigns controller to, or "" if c does not
// list it: the last entry naming it, as the managers' filter reads the file.
func (c *Config) Owner(controller string) string {
	owner := ""
	for _, l := range c.ControllerLeaders {
		if l.Name == controller {
			owner = l.Component
		}
	}
	return owner
}

// scalar quotes what YAML would not read back as the same string ("*"
// starts an alias).
func scalar(s string) string {
	if s == "" || strings.ContainsAny(s[:1], "*&!|>'\"%@`{}[],#?:-") {
		return strconv.Quote(s)
	}
	return s
}
