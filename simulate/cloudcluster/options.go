package cloudcluster

// Option changes how Create makes the cluster's cloud.
type Option func(*settings)

type settings struct {
	provider string
	vars     CloudConfigVars
	policies map[string][]byte
	network  NetworkShape
	// secondInterfaces, noNodeIP: the machines' shape (nodeshape.go).
	secondInterfaces, noNodeIP bool
}

func newSettings(opts []Option) settings {
	var s settings
	for _, o := range opts {
		o(&s)
	}
	return s
}

// WithProvider makes the cluster for the provider named ("": the
// default): its own code against the cloud's face of its API when it has
// a Cloud, or, imitated, the default provider's cluster whose manager
// behaves as that provider's (ValidateProvider says which it can).
func WithProvider(name string) Option { return func(s *settings) { s.provider = name } }

// WithCloudConfigVars runs the provider's code with a user's cloud-config
// variables for each side (nil: a side without a file of the user's).
func WithCloudConfigVars(kcm, ccm [][2]string) Option {
	return func(s *settings) { s.vars = CloudConfigVars{KCM: kcm, CCM: ccm} }
}

// WithPolicies holds the cloud's callers to the user's permission
// policies, by component (PrepareInput.Policies).
func WithPolicies(p map[string][]byte) Option {
	return func(s *settings) { s.policies = p }
}

// NetworkShape is the shape of the cluster's cloud network where users'
// networks differ from a fresh one in ways the providers trip on
// (providers.NetworkShapes): zero is the fresh one.
type NetworkShape struct {
	// RouteTables is how many route tables are tagged for the cluster
	// (0: one, the VPC's main table).
	RouteTables int
	// DHCPDomain is the domain-name of the VPC's DHCP options ("": the
	// region's): the metadata service's hostnames end in it, EC2's
	// private DNS names do not.
	DHCPDomain string
}

// MaxRouteTables bounds NetworkShape.RouteTables (and the simulated
// cloud's --aws-route-tables): a shape, not a scale test; a VPC holds up
// to 200.
const MaxRouteTables = 8

// WithNetworkShape shapes the cluster's cloud network (PrepareInput.Network).
func WithNetworkShape(n NetworkShape) Option {
	return func(s *settings) { s.network = n }
}
