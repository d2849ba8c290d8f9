// Package azureconfig reads the azure providers' cloud-config (azure.json)
// as each release reads it: sigs.k8s.io/yaml into its Config (parseConfig
// in k8s.io/legacy-cloud-providers azure/azure.go, ParseConfig in
// sigs.k8s.io/cloud-provider-azure pkg/provider/azure.go), so YAML or
// JSON, field names matched without regard to case (encoding/json's
// rule), unknown fields ignored, and a value of the wrong type refused.
// handover knows the types of the fields it carries into a rehearsal
// (fields.go, each held to every release's source by a test); a wrong
// type in any other field is the manager's to refuse, not handover's to
// see. The azure provider judges and carries a user's file through it
// (providers.CloudConfigs).
package azureconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// source is a file declaring a release's Config or a struct it embeds,
// for the test that holds the fields to it.
type source struct{ module, file string }

// releases are the codes whose cloud-config handover reads, by the name
// the azure provider's InTreeCode and CCMCode give them, and where each
// declares its Config.
var releases = map[string][]source{
	"k8s.io/legacy-cloud-providers/azure@v0.29.15": {
		{"k8s.io/legacy-cloud-providers@v0.29.15", "azure/azure.go"},
		{"k8s.io/legacy-cloud-providers@v0.29.15", "azure/auth/azure_auth.go"},
		{"k8s.io/legacy-cloud-providers@v0.29.15", "azure/clients/azure_client_config.go"},
	},
	"sigs.k8s.io/cloud-provider-azure@v1.30.4": {
		{"sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/provider/azure.go"},
		{"sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/provider/config/azure_auth.go"},
		{"sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/azureclients/azure_client_config.go"},
		{"sigs.k8s.io/cloud-provider-azure/pkg/azclient@v0.0.29", "arm_conf.go"},
		{"sigs.k8s.io/cloud-provider-azure/pkg/azclient@v0.0.29", "auth_conf.go"},
	},
}

// Codes are the releases handover reads, sorted.
func Codes() []string { return slices.Sorted(maps.Keys(releases)) }

// File is a cloud-config as a release read it: each top-level field by
// its name in the file, as JSON.
type File struct {
	Set map[string]json.RawMessage
}

// Read parses text as code's manager does when it starts; an error is its
// refusal (the manager does not start).
func Read(code, text string) (File, error) {
	if _, ok := releases[code]; !ok {
		return File{}, fmt.Errorf("no reader of %s's cloud-config (known: %s)", code, strings.Join(Codes(), ", "))
	}
	raw, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return File{}, err
	}
	f := File{Set: map[string]json.RawMessage{}}
	if string(raw) == "null" {
		return f, nil // an empty file: every field at its zero value
	}
	if err := json.Unmarshal(raw, &f.Set); err != nil {
		return File{}, fmt.Errorf("error unmarshaling JSON: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(f.Set)) {
		fd, ok := known(name)
		if !ok {
			continue
		}
		v := reflect.New(fd.goType())
		if err := json.Unmarshal(f.Set[name], v.Interface()); err != nil {
			return File{}, fmt.Errorf("error unmarshaling JSON: %s: %w", name, err)
		}
	}
	return f, nil
}

// Value is the field's value as its text in JSON, and whether the file
// sets it (under any case of its name; the last one set wins, as
// encoding/json decodes).
func (f File) Value(name string) (string, bool) {
	var v string
	var ok bool
	for _, k := range slices.Sorted(maps.Keys(f.Set)) {
		if strings.EqualFold(k, name) {
			v, ok = string(f.Set[k]), true
		}
	}
	return v, ok
}

// SKU is the load balancer SKU a release reading f uses: "standard" when
// loadBalancerSku says so (strings.EqualFold, useStandardLoadBalancer in
// both releases' azure_wrap.go), else "basic" — except that
// cloud-provider-azure from 1.27 first makes an empty one "standard"
// (setLBDefaults; the profile's azureStandardSKUSince), which
// inTree says it does not.
func SKU(f File, inTree bool) string {
	raw, _ := f.Value("loadBalancerSku")
	var sku string
	_ = json.Unmarshal([]byte(raw), &sku)
	switch {
	case strings.EqualFold(sku, "standard"), sku == "" && !inTree:
		return "standard"
	}
	return "basic"
}
