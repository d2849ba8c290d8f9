package rancher

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate"
)

// cloudName is what a cloud provider's name means in a procedure's files.
type cloudName struct {
	cloud  string // the cloud it names; "" when it does not say (external)
	inTree bool   // kube-controller-manager runs the cloud's in-tree provider
	// flavour is the procedure's flavour the name itself selects, where
	// it selects one whatever the cloud.
	flavour string
}

// cloudNames are the names Rancher's runbooks give: RKE2's
// cloud-provider-name aws, azure or external; RKE's cloud_provider.name
// also external-aws, which keeps the node names
// (useInstanceMetadataHostname).
var cloudNames = map[string]map[string]cloudName{
	migrate.RKE2: {"aws": {cloud: "aws", inTree: true}, "azure": {cloud: "azure", inTree: true}, "external": {}},
	migrate.RKE: {"aws": {cloud: "aws", inTree: true}, "azure": {cloud: "azure", inTree: true},
		"external": {flavour: "external"}, "external-aws": {cloud: "aws", flavour: "external-aws"}},
}

// flavours are each procedure's flavour for a cloud: the rke2 procedure's
// aws and azure; the rke procedure's external-aws (the AWS runbook's
// switch) and external (the Azure runbook's).
var flavours = map[string]map[string]string{
	migrate.RKE2: {"aws": "aws", "azure": "azure"},
	migrate.RKE:  {"aws": "external-aws", "azure": "external"},
}

// nodeDrivers are the clouds of Rancher's machine configurations, by the
// kind an RKE2 machine pool's machineConfigRef names: the amazonec2 and
// azure node drivers.
var nodeDrivers = map[string]string{"Amazonec2Config": "aws", "AzureConfig": "azure"}

// knownNames lists procedure's cloud provider names, for messages.
func knownNames(procedure string) string {
	return strings.Join(slices.Sorted(maps.Keys(cloudNames[procedure])), ", ")
}

// cloudEvidence is one field that names the cluster's cloud.
type cloudEvidence struct {
	cloud string
	what  string // the field's value: aws, the aws-cloud-controller-manager chart, Amazonec2Config
	at    Where
}

// cloud is the cloud c runs on, from every field that says (the cloud
// provider's names, the chart, the machines' driver), with the first
// that says it. Fields that disagree are an error; none saying is "".
func (c *Cluster) cloud() (cloudEvidence, error) {
	var ev []cloudEvidence
	for _, v := range []Value{c.CloudProvider, c.KCMProvider} {
		if n, ok := cloudNames[c.Procedure][v.Text]; ok && n.cloud != "" {
			ev = append(ev, cloudEvidence{n.cloud, v.Text, v.At})
		}
	}
	if c.Chart != nil {
		ev = append(ev, cloudEvidence{c.Chart.Cloud, "the " + c.Chart.Name + " chart", c.Chart.At})
	}
	if d, ok := nodeDrivers[c.NodeDriver.Text]; ok {
		ev = append(ev, cloudEvidence{d, c.NodeDriver.Text, c.NodeDriver.At})
	}
	if len(ev) == 0 {
		return cloudEvidence{}, nil
	}
	for _, e := range ev[1:] {
		if e.cloud != ev[0].cloud {
			return cloudEvidence{}, fmt.Errorf("%s: %s is %s's, but %s: %s is %s's: one cluster runs on one cloud", ev[0].at, ev[0].what, ev[0].cloud, e.at, e.what, e.cloud)
		}
	}
	return ev[0], nil
}

// inTree says whether kube-controller-manager runs an in-tree provider
// handover knows, and whether the name is one it knows at all.
func (c *Cluster) inTree() (inTree, known bool) {
	n, ok := cloudNames[c.Procedure][c.kcmProvider().Text]
	return n.inTree, ok
}
