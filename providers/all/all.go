// Package all registers every provider handover has: importing it (the
// command does) makes them available to the procedures, the lint and the
// clusters. A provider is a package of its own under providers/ plus one
// import line here.
package all

import (
	// Each registers itself at init.
	_ "github.com/handover-sh/handover/providers/aws"
	_ "github.com/handover-sh/handover/providers/azure"
	_ "github.com/handover-sh/handover/providers/simulated"
)
