package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/clusters/managers"
)

// validCCMForm rejects a form, replica count or manifest the procedure
// cannot run the cloud-controller-manager as.
func (s Spec) validCCMForm() []string {
	forms := s.reg().Managers.CCMForms
	var errs []string
	if s.CCMForm != "" && !slices.Contains(forms, s.CCMForm) {
		errs = append(errs, fmt.Sprintf("--ccm-form %s: %s runs the cloud-controller-manager as %s", s.CCMForm, s.Procedure, strings.Join(forms, " or ")))
	}
	if s.CCMReplicas < 0 || (s.CCMReplicas > 0 && s.CCMWorkload() != managers.Deployment) {
		errs = append(errs, fmt.Sprintf("--ccm-replicas %d: replicas are a Deployment's (--ccm-form deployment), at least 1", s.CCMReplicas))
	}
	if m := s.CCMManifest; m != nil {
		if !slices.Contains(forms, m.Kind()) {
			errs = append(errs, fmt.Sprintf("--ccm-manifest %s: %s runs the cloud-controller-manager as %s, not from a manifest (%s)",
				m.Path, s.Procedure, strings.Join(forms, " or "), accepting(func(r Registration) bool { return slices.Contains(r.Managers.CCMForms, managers.DaemonSet) })))
		}
		if s.CCMForm != "" && s.CCMForm != m.Kind() {
			errs = append(errs, fmt.Sprintf("--ccm-form %s and --ccm-manifest %s (a %s) contradict", s.CCMForm, m.Path, m.Kind()))
		}
		if s.CCMReplicas > 0 {
			errs = append(errs, fmt.Sprintf("--ccm-replicas and --ccm-manifest %s contradict: the manifest's replicas are kept", m.Path))
		}
	}
	return errs
}

// ccmWorkload is the form the cloud-controller-manager runs as: the
// user's manifest's, the form given, or the chart's for the flavour.
func (s Spec) CCMWorkload() string {
	switch {
	case s.CCMManifest != nil:
		return s.CCMManifest.Kind()
	case s.CCMForm != "":
		return s.CCMForm
	}
	if w, ok := chartWorkloads[s.Flavour]; ok {
		return w
	}
	return s.reg().Managers.CCMForms[0]
}

// ccmReplicas are a chart Deployment's replicas.
func (s Spec) ccmReplicas() int {
	if s.CCMReplicas > 0 {
		return s.CCMReplicas
	}
	return s.ControlPlanes
}

// ccmRef names the cloud-controller-manager's workload and identity.
type ccmRef struct{ Namespace, Name, ServiceAccount string }

func (s Spec) CCMRef() ccmRef {
	if m := s.CCMManifest; m != nil {
		return ccmRef{m.namespace(), m.meta().Name, m.ServiceAccount()}
	}
	return ccmRef{"kube-system", s.Provider().CCMWorkloadName, ccmServiceAccount}
}
