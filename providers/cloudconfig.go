package providers

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
}

// CloudConfigInput is a user's cloud-config for one side: where it was
// read, its text, and the code that reads it.
type CloudConfigInput struct {
	Path, Text, Code string
}

// ConfigFinding is one thing a provider's code finds in a cloud-config,
// as the lint reports it.
type ConfigFinding struct {
	Error bool   // the manager refuses it (else a warning)
	Where string // the file and variable
	What  string // what happens
	Fix   string // what to change
}
