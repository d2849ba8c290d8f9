package azureconfig

import (
	"slices"
	"strings"
	"testing"
)

const inTree = "k8s.io/legacy-cloud-providers/azure@v0.29.15"

func TestReadAsTheManagerReads(t *testing.T) {
	for _, c := range []struct {
		name, text, refused string
	}{
		{"json", `{"loadBalancerSku": "standard", "tenantId": "t"}`, ""},
		{"yaml", "loadBalancerSku: basic\ncloudProviderRateLimitQPS: 1.5\n", ""},
		{"empty", "", ""},
		{"any case", `{"LoadBalancerSKU": "standard"}`, ""},
		{"unknown field", `{"noSuchField": 3}`, ""},
		{"wrong type", `{"loadBalancerSku": 1}`, "loadBalancerSku"},
		{"wrong type in a pointer", `{"excludeMasterFromStandardLB": "yes"}`, "excludeMasterFromStandardLB"},
		{"not an object", `["a"]`, "unmarshal"},
		{"malformed", "{\"loadBalancerSku\": ", "yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(inTree, c.text)
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
				t.Fatalf("got %v, want a refusal naming %q", err, c.refused)
			}
		})
	}
	if _, err := Read("k8s.io/legacy-cloud-providers/azure@v0.1.0", "{}"); err == nil {
		t.Error("a release handover does not read was read")
	}
}

func TestSKUPerSide(t *testing.T) {
	for _, c := range []struct {
		text        string
		inTree, ccm string
	}{
		{`{}`, "basic", "standard"},
		{`{"loadBalancerSku": "Standard"}`, "standard", "standard"},
		{`{"loadBalancerSku": "basic"}`, "basic", "basic"},
		{`{"loadbalancersku": "standard"}`, "standard", "standard"},
	} {
		f, err := Read(inTree, c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := SKU(f, true); got != c.inTree {
			t.Errorf("%s in tree: %s, want %s", c.text, got, c.inTree)
		}
		if got := SKU(f, false); got != c.ccm {
			t.Errorf("%s outside: %s, want %s", c.text, got, c.ccm)
		}
	}
}

func TestCarryKeepsBehaviourAndLeavesPlaces(t *testing.T) {
	f, err := Read(inTree, `{"loadBalancerSku": "standard", "tenantId": "t", "aadClientSecret": "s3cret", "vmType": "vmss", "other": true, "cloudProviderRateLimit": true}`)
	if err != nil {
		t.Fatal(err)
	}
	vars, left := Carry(f)
	if want := [][2]string{{"cloudProviderRateLimit", "true"}, {"loadBalancerSku", `"standard"`}}; !slices.Equal(vars, want) {
		t.Errorf("carried %v, want %v", vars, want)
	}
	var names []string
	for _, l := range left {
		names = append(names, l.Name)
		if strings.Contains(l.Value, "s3cret") {
			t.Errorf("a secret shown: %v", l)
		}
	}
	if want := []string{"aadClientSecret", "other", "tenantId", "vmType"}; !slices.Equal(names, want) {
		t.Errorf("left %v, want %v", names, want)
	}
}
