package host

import (
	"time"

	"github.com/handover-sh/handover/waits"
)

// The host's waits, in the one table (waits).
const (
	WaitDockerStart  = "dockerd-start"
	WaitDockerReload = "dockerd-reload"
)

func init() {
	waits.Register("clusters/host",
		waits.Wait{Name: WaitDockerStart, Default: time.Minute, Doc: "a dockerd host prepare started answers"},
		waits.Wait{Name: WaitDockerReload, Default: 10 * time.Second, Doc: "dockerd shows the default runtime daemon.json now names, after a reload"})
}
