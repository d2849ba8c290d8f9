// Package procedures registers every procedure handover knows: importing
// it (rehearsal does) makes them all available to migrate. A procedure is a
// package of its own under this one — its registration row and the steps it
// composes from migrate's step library — plus one import line here.
package procedures

import (
	// Each registers itself at init.
	_ "github.com/handover-sh/handover/migrate/procedures/controllersflag"
	_ "github.com/handover-sh/handover/migrate/procedures/defaultconfig"
	_ "github.com/handover-sh/handover/migrate/procedures/nodeipam"
	_ "github.com/handover-sh/handover/migrate/procedures/rke"
	_ "github.com/handover-sh/handover/migrate/procedures/rke2"
	_ "github.com/handover-sh/handover/migrate/procedures/stopstart"
	_ "github.com/handover-sh/handover/migrate/procedures/taskdoc"
)
