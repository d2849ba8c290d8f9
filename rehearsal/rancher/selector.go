package rancher

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// controlPlaneRole is the label Rancher gives a control-plane machine.
const controlPlaneRole = "rke.cattle.io/control-plane-role"

// reach is whether a machineSelectorConfig entry applies to the control
// planes, where kube-controller-manager runs.
type reach int

const (
	reachesAll reach = iota // no selector: every machine
	reachesControlPlanes
	reachesOthers
	// reachesUnknown: it selects by labels a control plane may or may not
	// carry (the etcd or worker role of a shared machine, labels of the
	// user's own).
	reachesUnknown
)

// readSelector reads an entry's machineLabelSelector and says whom it
// reaches: a selector of the control-plane role alone is evaluated
// against a control plane's labels; one of other labels cannot be.
func readSelector(f field) (reach, error) {
	if !f.present() {
		return reachesAll, nil
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	ml, err := f.get("matchLabels")
	if err != nil {
		return 0, err
	}
	keys, values, err := ml.entries()
	if err != nil {
		return 0, err
	}
	for i, k := range keys {
		if sel.MatchLabels[k], err = values[i].str(); err != nil {
			return 0, err
		}
	}
	if err := readExpressions(f, sel); err != nil {
		return 0, err
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return 0, f.errorf("%v", err)
	}
	reqs, _ := s.Requirements()
	if slices.ContainsFunc(reqs, func(r labels.Requirement) bool { return r.Key() != controlPlaneRole }) {
		return reachesUnknown, nil
	}
	if s.Matches(labels.Set{controlPlaneRole: "true"}) {
		return reachesControlPlanes, nil
	}
	return reachesOthers, nil
}

// readExpressions reads matchExpressions into sel.
func readExpressions(f field, sel *metav1.LabelSelector) error {
	me, err := f.get("matchExpressions")
	if err != nil {
		return err
	}
	items, err := me.items()
	if err != nil {
		return err
	}
	for _, it := range items {
		key, err := it.strAt("key")
		if err != nil {
			return err
		}
		op, err := it.strAt("operator")
		if err != nil {
			return err
		}
		vs, err := it.get("values")
		if err != nil {
			return err
		}
		values, _, err := vs.strs()
		if err != nil {
			return err
		}
		sel.MatchExpressions = append(sel.MatchExpressions,
			metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOperator(op), Values: values})
	}
	return nil
}
