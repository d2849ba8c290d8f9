package capfilter

import (
	"encoding/json"
	"fmt"
	"os"
)

// capabilityLists are the five sets an OCI process carries.
var capabilityLists = []string{"bounding", "effective", "inheritable", "permitted", "ambient"}

// FilterProcess removes capabilities outside allowed from an OCI "process"
// object (decoded generically, so unknown fields survive). It reports whether
// anything was removed.
func FilterProcess(process map[string]any, allowed Set) bool {
	caps, ok := process["capabilities"].(map[string]any)
	if !ok {
		return false
	}
	changed := false
	for _, list := range capabilityLists {
		names, ok := caps[list].([]any)
		if !ok {
			continue
		}
		kept := make([]any, 0, len(names))
		for _, n := range names {
			if s, isString := n.(string); isString && !allowed.Has(s) {
				changed = true
				continue
			}
			kept = append(kept, n)
		}
		caps[list] = kept
	}
	return changed
}

// FilterFile rewrites an OCI bundle's config.json (isBundle) or an exec
// process file so that it asks for no capability outside allowed.
func FilterFile(path string, isBundle bool, allowed Set) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("decoding %s: %w", path, err)
	}
	process := doc
	if isBundle {
		p, ok := doc["process"].(map[string]any)
		if !ok {
			return nil
		}
		process = p
	}
	if !FilterProcess(process, allowed) {
		return nil
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, info.Mode().Perm())
}
