package azure

import (
	"net/http"
	"slices"
	"strings"
)

// versions are the api-versions the face serves, by resource provider
// namespace: the ones the providers send, read from their clients'
// interface.go constants —
//   - legacy-cloud-providers@v0.29.15 azure/clients/*: compute 2019-07-01,
//     network 2019-06-01;
//   - cloud-provider-azure@v1.30.4 pkg/azureclients/*: APIVersion compute
//     2022-03-01, network 2022-07-01, zones (Microsoft.Resources) 2020-06-01;
//     AzureStackCloudAPIVersion (cloud AzureStackCloud without
//     disableAzureStackCloud) compute 2017-12-01 (VMs) and 2019-07-01
//     (availability and scale sets), network 2018-11-01 and 2019-03-01
//     (private link services), zones 2019-07-01.
//
// ARM serves more; a version not here is refused as an unregistered one
// would be, and the call log marks it unimplemented.
var versions = map[string][]string{
	"microsoft.compute":   {"2017-12-01", "2019-07-01", "2022-03-01"},
	"microsoft.network":   {"2018-11-01", "2019-03-01", "2019-06-01", "2022-07-01"},
	"microsoft.resources": {"2019-07-01", "2020-06-01"},
}

// checkVersion refuses an api-version the namespace's types do not serve,
// as ARM answers one (400 NoRegisteredProviderFound, as
// Azure/azure-cli#28496 quotes it for networkInterfaces).
func (f *Face) checkVersion(namespace, typ, version string) *armError {
	served := versions[strings.ToLower(namespace)]
	if slices.Contains(served, version) {
		return nil
	}
	e := errorf(http.StatusBadRequest, "NoRegisteredProviderFound",
		"No registered resource provider found for location '%s' and API version '%s' for type '%s'. The supported api-versions are '%s'. The supported locations are '%s'.",
		f.opts.Network.Location, version, typ, strings.Join(served, ", "), f.opts.Network.Location)
	e.Unimplemented = true
	return e
}

// errNoVersion is ARM's answer to a call without an api-version
// (cloudquery/cloudquery#6626 quotes it).
func errNoVersion() *armError {
	return errorf(http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
}
