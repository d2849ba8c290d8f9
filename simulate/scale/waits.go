package scale

import (
	"time"

	"github.com/handover-sh/handover/waits"
)

// WaitNodeJoin: the fleet's wait, in the one table (waits).
const WaitNodeJoin = "fleet-node-join"

func init() {
	waits.Register("simulate/scale",
		waits.Wait{Name: WaitNodeJoin, Default: 3 * time.Minute, Doc: "one simulated node registers, throttled cloud calls retried included"})
}
