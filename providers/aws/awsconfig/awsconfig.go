// Package awsconfig reads the aws providers' cloud-config as each release
// of their code reads it: with gcfg (gopkg.in/gcfg.v1 v1.2.3, the version
// both modules require) into a copy of that release's CloudConfig struct,
// so a variable a release does not know is refused in gcfg's own words,
// as the manager or kubelet refuses it when it starts. A test holds each
// copy to its release's source. The aws provider judges and carries a
// user's file through it (providers.CloudConfigs).
package awsconfig

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/gcfg.v1"
)

// File is a cloud-config as one release read it: the [Global] variables
// set (by the release's field name, each value as the provider holds it)
// and the [ServiceOverride] sections by name.
type File struct {
	Global    map[string]string
	Overrides map[string]Override
}

// Override is one [ServiceOverride "name"] section.
type Override struct {
	Service, Region, URL, SigningRegion, SigningMethod, SigningName string
}

// serviceOverrides is the section both providers declare, field for field.
type serviceOverrides = map[string]*Override

// Codes are the releases whose reader is known, by the name the
// providers' Code gives them.
func Codes() []string { return slices.Sorted(maps.Keys(readers)) }

// Read parses text as code (module/package@version, as providers.Code
// names it) parses its --cloud-config.
func Read(code, text string) (File, error) {
	r, ok := readers[code]
	if !ok {
		return File{}, fmt.Errorf("no reader of %s's cloud-config (known: %s)", code, strings.Join(Codes(), ", "))
	}
	cfg := r.new()
	// The providers take any error gcfg returns, its warnings (a variable
	// or section with no field) among them, as the file's refusal.
	if err := gcfg.ReadStringInto(cfg, text); err != nil {
		return File{}, errors.New(oneLine(err.Error()))
	}
	v := reflect.ValueOf(cfg).Elem()
	f := File{Global: setFields(v.FieldByName("Global")), Overrides: map[string]Override{}}
	for name, o := range v.FieldByName("ServiceOverride").Interface().(serviceOverrides) {
		f.Overrides[name] = *o
	}
	return f, nil
}

// Fields are the [Global] variables code knows, by field name.
func Fields(code string) []string {
	r, ok := readers[code]
	if !ok {
		return nil
	}
	t := reflect.TypeOf(r.new()).Elem().Field(0).Type
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = t.Field(i).Name
	}
	return out
}

// setFields are the struct's non-zero fields as text.
func setFields(v reflect.Value) map[string]string {
	out := map[string]string{}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.IsZero() {
			continue
		}
		name := v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.Slice:
			out[name] = strings.Join(f.Interface().([]string), ",")
		default:
			out[name] = fmt.Sprint(f.Interface())
		}
	}
	return out
}

// oneLine is gcfg's message, whose warnings come one per line (repeated
// per variable of an unknown section), as one line with each said once.
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// ClusterID is the cluster a provider reading f filters the cloud's
// resources by (awsTagging.init in both releases' tags.go):
// KubernetesClusterTag when set (the legacy tag), else
// KubernetesClusterID; "" when neither is set, and the provider takes it
// from its own instance's tags. ok is false when both are set and differ:
// the provider refuses to start ("clusterID tags did not match").
func ClusterID(f File) (id string, ok bool) {
	tag, cid := f.Global["KubernetesClusterTag"], f.Global["KubernetesClusterID"]
	if tag != "" {
		return tag, cid == "" || cid == tag
	}
	return cid, true
}
