// Package lmconfig reads and writes LeaderMigrationConfiguration files, the
// controllermanager.config.k8s.io/v1alpha1 type both controller managers read
// with --leader-migration-config.
package lmconfig

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// API identity of the file, as the managers' decoders require it.
const (
	APIVersion = "controllermanager.config.k8s.io/v1alpha1"
	Kind       = "LeaderMigrationConfiguration"
)

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
	out.raw = nil
	return &out
}

// Parse decodes a configuration strictly: unknown or misspelt fields are
// errors, because the managers would silently ignore them.
func Parse(b []byte) (*Config, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("empty file: a %s needs kind, apiVersion, leaderName, resourceLock and controllerLeaders", Kind)
	}
	var c Config
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		return nil, fmt.Errorf("not a valid %s: %w", Kind, err)
	}
	c.raw = bytes.Clone(b)
	return &c, nil
}

// ReadFile parses the configuration at path.
func ReadFile(path string) (*Config, error) {
	b, err := os.ReadFile(path)
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

// Owner is the component c assigns controller to, or "" if c does not list it.
func (c *Config) Owner(controller string) string {
	for _, l := range c.ControllerLeaders {
		if l.Name == controller {
			return l.Component
		}
	}
	return ""
}

// scalar quotes what YAML would not read back as the same string ("*"
// starts an alias).
func scalar(s string) string {
	if s == "" || strings.ContainsAny(s[:1], "*&!|>'\"%@`{}[],#?:-") {
		return strconv.Quote(s)
	}
	return s
}
