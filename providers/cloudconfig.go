package providers

import "slices"

// CloudConfigs is a provider whose own code reads a user's cloud-config
// (--cloud-config), so that the lint can judge one and a rehearsal can
// carry it into the cluster's cloud.
type CloudConfigs interface {
	// CloudConfigCodes are the code (module@version, as Coded names it)
	// whose cloud-config the provider reads, sorted.
	CloudConfigCodes() []string
	// CheckCloudConfig is what code finds wrong in text as its manager
	// reads it when it starts (an Error: the manager would not start).
	CheckCloudConfig(in CloudConfigInput) []ConfigFinding
	// CompareCloudConfigs is what changes at the hand-off when the
	// kube-controller-manager's side reads kcm and the
	// cloud-controller-manager's reads ccm (both as their code reads them).
	CompareCloudConfigs(kcm, ccm CloudConfigInput) []ConfigFinding
	// CarryCloudConfig is what a rehearsal runs in's code with: the
	// variables it carries into the cluster's cloud (name and value, in
	// name order) and those it leaves, with why. An error is the code
	// refusing the text, in its own words: its manager would not start,
	// so no rehearsal can run it (CheckCloudConfig says what to change).
	CarryCloudConfig(in CloudConfigInput) (carried [][2]string, left []LeftOut, err error)
}

// CloudConfigInput is a user's cloud-config for one side: where it was
// read, its text, the code that reads it, and the manager that reads it
// there (kube-controller-manager or cloud-controller-manager), as the
// findings name it.
type CloudConfigInput struct {
	Path, Text, Code string
	Reader           string
}

// ConfigFinding is one thing a provider's code finds in a cloud-config,
// as the lint reports it.
type ConfigFinding struct {
	Error bool   // the manager refuses it (else a warning)
	Where string // the file and variable
	What  string // what happens
	Fix   string // what to change
}

// LeftOut is a part of a user's cloud-config (a variable, a section) a
// rehearsal runs without, its value, and why.
type LeftOut struct{ Name, Value, Why string }

// CloudConfigsOf is the registered provider whose code code is, as one
// that reads cloud-configs; false when none reads code's.
func CloudConfigsOf(code string) (CloudConfigs, bool) {
	for _, p := range All() {
		if c, ok := As[CloudConfigs](p); ok && slices.Contains(c.CloudConfigCodes(), code) {
			return c, true
		}
	}
	return nil, false
}

// CloudConfigCodes are the code whose cloud-config a registered provider
// reads, sorted.
func CloudConfigCodes() []string {
	var out []string
	for _, p := range All() {
		if c, ok := As[CloudConfigs](p); ok {
			out = append(out, c.CloudConfigCodes()...)
		}
	}
	slices.Sort(out)
	return out
}
