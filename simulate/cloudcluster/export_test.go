package cloudcluster

// What the tests of the providers' wiring (package cloudcluster_test,
// which imports the providers that import this package) reach inside.
var (
	Configure        = configure
	CloudNodeMounts  = cloudNodeMounts
	KindNodeNames    = kindNodeNames
	CloudOf          = cloudOf
	MountsAdminToken = mountsAdminToken
)

const (
	ProviderFile    = providerFile
	CloudConfigFile = cloudConfigFile
)
