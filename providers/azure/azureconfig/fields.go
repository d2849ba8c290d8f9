package azureconfig

import (
	"reflect"
	"strings"
)

// field is one Config field handover knows: its JSON name and its Go type
// as the releases declare it.
type field struct {
	name, typ string
	goName    string // when it is not name with its first letter upper case
	// why it is left out of a rehearsal; "" when it is carried.
	why string
}

// Why each kind of field stays behind.
const (
	yourPlace  = "names a place of your subscription; the rehearsal's are the simulated cloud's"
	yourAccess = "how your components reach and sign in to Azure; the rehearsal's reach the simulated cloud as their managed identities"
)

// fields are the Config fields handover carries (they change what the
// provider's code does, and the simulated cloud serves what follows) and
// those it leaves because they name the user's own subscription. Each is
// declared alike in every release of releases (TestFieldsHoldToTheirSource).
var fields = []field{
	{name: "loadBalancerSku", typ: "string"},
	{name: "excludeMasterFromStandardLB", typ: "*bool"},
	{name: "maximumLoadBalancerRuleCount", typ: "int"},
	{name: "cloudProviderBackoff", typ: "bool"},
	{name: "cloudProviderBackoffRetries", typ: "int"},
	{name: "cloudProviderBackoffExponent", typ: "float64"},
	{name: "cloudProviderBackoffDuration", typ: "int"},
	{name: "cloudProviderBackoffJitter", typ: "float64"},
	{name: "cloudProviderRateLimit", typ: "bool"},
	{name: "cloudProviderRateLimitQPS", typ: "float32"},
	{name: "cloudProviderRateLimitBucket", typ: "int"},
	{name: "cloudProviderRateLimitQPSWrite", typ: "float32"},
	{name: "cloudProviderRateLimitBucketWrite", typ: "int"},

	{name: "cloud", typ: "string", why: "names your Azure cloud; the rehearsal's is the simulated one, reached by resourceManagerEndpoint"},
	{name: "tenantId", goName: "TenantID", typ: "string", why: yourPlace},
	{name: "subscriptionId", goName: "SubscriptionID", typ: "string", why: yourPlace},
	{name: "resourceGroup", typ: "string", why: yourPlace},
	{name: "location", typ: "string", why: yourPlace},
	{name: "vnetName", typ: "string", why: yourPlace},
	{name: "vnetResourceGroup", typ: "string", why: yourPlace},
	{name: "subnetName", typ: "string", why: yourPlace},
	{name: "securityGroupName", typ: "string", why: yourPlace},
	{name: "securityGroupResourceGroup", typ: "string", why: yourPlace},
	{name: "routeTableName", typ: "string", why: yourPlace},
	{name: "routeTableResourceGroup", typ: "string", why: yourPlace},
	{name: "primaryAvailabilitySetName", typ: "string", why: yourPlace},
	{name: "vmType", goName: "VMType", typ: "string", why: "the simulated cloud's VMs are availability-set VMs (standard)"},
	{name: "aadClientId", goName: "AADClientID", typ: "string", why: yourAccess},
	{name: "aadClientSecret", goName: "AADClientSecret", typ: "string", why: yourAccess},
	{name: "useManagedIdentityExtension", typ: "bool", why: yourAccess},
	{name: "userAssignedIdentityID", typ: "string", why: yourAccess},
	{name: "useInstanceMetadata", typ: "bool", why: "the rehearsal's components read the simulated metadata service"},
}

// secret are fields whose value is never shown.
var secret = map[string]bool{"aadClientSecret": true}

// known is the field named name (any case), if handover knows it.
func known(name string) (field, bool) {
	for _, f := range fields {
		if strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return field{}, false
}

// goType is the type a value of the field decodes into.
func (f field) goType() reflect.Type {
	return map[string]reflect.Type{
		"string": reflect.TypeFor[string](), "bool": reflect.TypeFor[bool](), "*bool": reflect.TypeFor[*bool](),
		"int": reflect.TypeFor[int](), "float32": reflect.TypeFor[float32](), "float64": reflect.TypeFor[float64](),
	}[f.typ]
}
