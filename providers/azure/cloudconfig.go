package azure

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/azure/azureconfig"
	azureface "github.com/handover-sh/handover/simulate/cloudserver/azure"
)

// The azure provider's code reads a user's azure.json, each release as
// azureconfig reads it: the lint judges a file by it, and a rehearsal
// carries what the simulated cloud serves.
var _ providers.CloudConfigs = Provider{}

// CloudConfigCodes are the releases azureconfig reads.
func (Provider) CloudConfigCodes() []string { return azureconfig.Codes() }

// inTreeCode: the in-tree provider's code is legacy-cloud-providers'.
func inTreeCode(code string) bool { return strings.HasPrefix(code, "k8s.io/legacy-cloud-providers/") }

// basicRetired is why a basic SKU fails on Azure today.
const basicRetired = "Azure creates no Basic SKU public IP since 31 March 2025 and retired them on 30 September 2025 " +
	"(azure.microsoft.com/updates: \"Upgrade to Standard SKU public IP addresses in Azure by 30 September 2025\"): " +
	"each new LoadBalancer Service's public IP is refused (400 IPv4BasicSkuPublicIpCountLimitReached) and the Service gets no address"

// CheckCloudConfig: the file must be one the release reads, as its
// manager reads it when it starts; a basic SKU (loadBalancerSku unset in
// tree, or "basic") is warned: Azure no longer makes its public IPs.
func (Provider) CheckCloudConfig(in providers.CloudConfigInput) []providers.ConfigFinding {
	where := in.Path + " (" + in.Reader + ")"
	f, err := azureconfig.Read(in.Code, in.Text)
	if err != nil {
		return []providers.ConfigFinding{{Error: true, Where: where,
			What: fmt.Sprintf("%s refuses it, and the %s does not start: %v", in.Code, in.Reader, err),
			Fix:  "write azure.json as JSON (or YAML) whose fields have the types the provider declares"}}
	}
	if azureconfig.SKU(f, inTreeCode(in.Code)) == "basic" {
		v, set := f.Value("loadBalancerSku")
		if !set {
			v = "unset (basic in tree)"
		}
		return []providers.ConfigFinding{{Where: where + ": loadBalancerSku",
			What: fmt.Sprintf("it is %s: %s", v, basicRetired),
			Fix:  `set "loadBalancerSku": "standard" on both sides`}}
	}
	return nil
}

// CompareCloudConfigs: the load balancer SKU each side uses, and each
// carried field that differs, change what the provider does at the
// hand-off.
func (Provider) CompareCloudConfigs(kcm, ccm providers.CloudConfigInput) []providers.ConfigFinding {
	kf, kerr := azureconfig.Read(kcm.Code, kcm.Text)
	cf, cerr := azureconfig.Read(ccm.Code, ccm.Text)
	if kerr != nil || cerr != nil {
		return nil // CheckCloudConfig says why
	}
	var out []providers.ConfigFinding
	if ks, cs := azureconfig.SKU(kf, inTreeCode(kcm.Code)), azureconfig.SKU(cf, inTreeCode(ccm.Code)); ks != cs {
		out = append(out, providers.ConfigFinding{Where: "loadBalancerSku",
			What: fmt.Sprintf("%s as the %s reads it makes %s load balancers, %s as the %s reads it %s ones (an empty loadBalancerSku is basic in tree and standard in cloud-provider-azure from 1.27, setLBDefaults): the Services' load balancers change SKU when the cloud-controller-manager takes them",
				kcm.Path, kcm.Reader, ks, ccm.Path, ccm.Reader, cs),
			Fix: `set "loadBalancerSku": "standard" in both files`})
	}
	kv, _ := azureconfig.Carry(kf)
	cv, _ := azureconfig.Carry(cf)
	for _, d := range differing(kv, cv) {
		if d[0] == "loadBalancerSku" {
			continue // compared above, as each side uses it
		}
		out = append(out, providers.ConfigFinding{Where: d[0],
			What: fmt.Sprintf("%s has %s, %s has %s: the provider behaves otherwise once the cloud-controller-manager runs the cloud controllers", kcm.Path, shown(d[1]), ccm.Path, shown(d[2])),
			Fix:  "give both managers the same value, unless the change is the point of the migration"})
	}
	return out
}

// differing are the names set differently on the two sides (name, kcm's
// value, ccm's; "" for unset), in name order.
func differing(k, c [][2]string) [][3]string {
	get := func(vars [][2]string, n string) string {
		for _, kv := range vars {
			if kv[0] == n {
				return kv[1]
			}
		}
		return ""
	}
	seen := map[string]bool{}
	var out [][3]string
	for _, kv := range append(append([][2]string{}, k...), c...) {
		n := kv[0]
		if seen[n] {
			continue
		}
		seen[n] = true
		if a, b := get(k, n), get(c, n); a != b {
			out = append(out, [3]string{n, a, b})
		}
	}
	return out
}

func shown(v string) string {
	if v == "" {
		return "it unset"
	}
	return v
}

// CarryCloudConfig: a rehearsal runs with the fields that change what the
// provider does and leaves those naming the user's own subscription and
// credentials (azureconfig.Carry).
func (Provider) CarryCloudConfig(in providers.CloudConfigInput) ([][2]string, []providers.LeftOut, error) {
	f, err := azureconfig.Read(in.Code, in.Text)
	if err != nil {
		return nil, nil, err
	}
	vars, left := azureconfig.Carry(f)
	out := make([]providers.LeftOut, len(left))
	for i, l := range left {
		out[i] = providers.LeftOut(l)
	}
	return vars, out, nil
}

// withOwn is a side's azure.json with a user's carried fields (nil: none
// given, handover's own): the user's loadBalancerSku, unset when the file
// sets none, and the rest as the file has them; the network, endpoint and
// identity stay the rehearsal's.
func withOwn(cfg azureface.ProviderConfig, vars [][2]string) (azureface.ProviderConfig, error) {
	if vars == nil {
		return cfg, nil
	}
	cfg.LoadBalancerSku, cfg.Extra = "", map[string]any{}
	for _, kv := range vars {
		if kv[0] == "loadBalancerSku" {
			if err := json.Unmarshal([]byte(kv[1]), &cfg.LoadBalancerSku); err != nil {
				return cfg, fmt.Errorf("loadBalancerSku %s: %w", kv[1], err)
			}
			continue
		}
		if !json.Valid([]byte(kv[1])) {
			return cfg, fmt.Errorf("%s: %s is not JSON", kv[0], kv[1])
		}
		cfg.Extra[kv[0]] = json.RawMessage(kv[1])
	}
	return cfg, nil
}
