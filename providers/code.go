package providers

// Code is the provider code one side of a migration runs, for the reports.
type Code struct {
	// InTree is the code built into a version's kube-controller-manager and
	// kubelets (module@version, or the simulated provider's package).
	InTree func(version string) string
	// CCM is the cloud-controller-manager's of a version.
	CCM func(version string) string
	// API is the cloud API the code calls, served by the simulated cloud
	// under that provider's wire format ("aws"); "" for the simulated
	// cloud's own.
	API string
}
