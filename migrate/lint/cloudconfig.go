package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/providers"
)

// CloudConfig is a user's --cloud-config for one side and the provider
// code that reads it (module/package@version, as providers.Code names it).
type CloudConfig struct {
	Path, Text, Code string
}

// input is c as the provider that reads it takes it: read by component.
func (c CloudConfig) input(component string) providers.CloudConfigInput {
	return providers.CloudConfigInput{Path: c.Path, Text: c.Text, Code: c.Code, Reader: component}
}

// lintCloudConfig: a side's cloud-config is judged by the provider whose
// code reads it, as its manager reads it when it starts.
func lintCloudConfig(s Side) Findings {
	c := s.CloudConfig
	if c == nil {
		return nil
	}
	owner, ok := providers.CloudConfigsOf(c.Code)
	if !ok {
		return Findings{{Error, c.Path + " (" + s.Component + ")",
			fmt.Sprintf("handover cannot read %q's cloud-config (it reads %s)", c.Code, strings.Join(providers.CloudConfigCodes(), ", ")),
			"give the cloud-config of a provider code handover reads"}}
	}
	return fromConfig(owner.CheckCloudConfig(c.input(s.Component)))
}

// lintCloudConfigPair: what changes at the hand-off from one manager's
// cloud-config to the other's, as the provider whose code reads both
// compares them (no provider reads both: nothing to compare).
func lintCloudConfigPair(k, c Side) Findings {
	if k.CloudConfig == nil || c.CloudConfig == nil {
		return nil
	}
	owner, ok := providers.CloudConfigsOf(k.CloudConfig.Code)
	if !ok || !slices.Contains(owner.CloudConfigCodes(), c.CloudConfig.Code) {
		return nil // lintCloudConfig says why
	}
	return fromConfig(owner.CompareCloudConfigs(k.CloudConfig.input(k.Component), c.CloudConfig.input(c.Component)))
}

// fromConfig are a provider's findings as the lint's, in its order.
func fromConfig(cfs []providers.ConfigFinding) Findings {
	var out Findings
	for _, f := range cfs {
		sev := Warning
		if f.Error {
			sev = Error
		}
		out = append(out, Finding{sev, f.Where, f.What, f.Fix})
	}
	return out
}
