package providers

// The providers' names, until each is known only to its own package.
const (
	Simulated = "simulated"
	AWS       = "aws"
	Azure     = "azure"
)
