package rehearsal

import (
	"fmt"
	"strconv"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/timeline"
)

// writeProviderCode puts the provider code each side runs on the timeline.
func writeProviderCode(tl *timeline.Writer, s migrate.Spec) error {
	for _, c := range s.ProviderCode() {
		if err := tl.Write(timeline.Event{Source: "rehearsal", Kind: timeline.ProviderCode,
			Attrs: map[string]string{"side": c.Side, "runs": c.Runs, "code": c.Code, "api": c.API}}); err != nil {
			return err
		}
	}
	return nil
}

// writeAPIActions puts what the cluster's cloud answered on the face of
// the provider's own API on the timeline, per action, when the provider
// code calls one (providers.Audited): every call since the cloud started
// with the cluster (a new cluster gets a new cloud), its creation's too.
func writeAPIActions(tl *timeline.Writer, s migrate.Spec) error {
	audited, ok := s.Audited()
	if !ok {
		return nil
	}
	api := audited.API()
	counts, err := audited.APIActions(cloudcluster.StateDir(s.Cluster))
	if err != nil {
		return fmt.Errorf("the %s actions called: %w", api, err)
	}
	for _, c := range counts {
		attrs := map[string]string{"api": api, "service": c.Service, "action": c.Action, "calls": strconv.Itoa(c.Calls), "refused": strconv.Itoa(c.Refused)}
		if c.Unimplemented {
			attrs["unimplemented"] = "true"
		}
		if err := tl.Write(timeline.Event{Source: "cloud-audit", Kind: timeline.CloudAPIAction, Attrs: attrs}); err != nil {
			return err
		}
	}
	return nil
}
