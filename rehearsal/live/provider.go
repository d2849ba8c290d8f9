package live

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/providers"
)

// evidence is one thing that names the cluster's cloud.
type evidence struct{ cloud, what string }

// clouds are the evidence of the managers' flags and the ProviderIDs, in
// that order.
func clouds(cl *Cluster, kcmFlags, ccmFlags []string) []evidence {
	var out []evidence
	if v, _ := cmdline.Value(kcmFlags, "cloud-provider"); v != "" && v != "external" {
		out = append(out, evidence{v, "kube-controller-manager --cloud-provider=" + v + " (in tree)"})
	}
	if v, _ := cmdline.Value(ccmFlags, "cloud-provider"); v != "" {
		out = append(out, evidence{v, "cloud-controller-manager --cloud-provider=" + v})
	}
	for _, n := range cl.Nodes {
		if m := providerIDs.FindStringSubmatch(n.Spec.ProviderID); m != nil {
			out = append(out, evidence{m[1], "node " + n.Name + "'s ProviderID " + n.Spec.ProviderID})
			break
		}
	}
	return out
}

// provider is the provider of the cluster's cloud: its own code where
// handover has it, else an imitation; handover's simulated provider for
// a cluster on it (kind). The versions are left to rehearse: a cloud's
// own code runs on some versions only, and rehearse --like says what it
// approximates.
func (d *Description) provider(cl *Cluster, kcmFlags, ccmFlags []string) {
	ev := clouds(cl, kcmFlags, ccmFlags)
	if len(ev) == 0 {
		d.note("no manager names a cloud provider and no node has a ProviderID: the rehearsal runs handover's simulated provider")
		return
	}
	first := ev[0]
	for _, e := range ev[1:] {
		if e.cloud != first.cloud {
			d.note("%s, but %s: the rehearsal follows the first", first.what, e.what)
		}
	}
	ps := providers.OfCloud(first.cloud)
	if len(ps) == 0 {
		d.note("%s: handover has no provider of %s; the rehearsal runs its simulated provider", first.what, first.cloud)
		return
	}
	p := ps[0]
	if p.Runs() == providers.HandoversCode {
		d.fact("cloud: handover's simulated provider (%s)", first.what)
		return
	}
	d.File.Config.Provider = p.Name()
	d.File.From["provider"] = fmt.Sprintf("%s: the %s provider runs %s", first.what, p.Name(), p.Runs())
	if len(ev) > 1 {
		var rest []string
		for _, e := range ev[1:] {
			if e.cloud == first.cloud {
				rest = append(rest, e.what)
			}
		}
		if len(rest) > 0 {
			d.File.From["provider"] += "; so does " + strings.Join(rest, ", ")
		}
	}
}
