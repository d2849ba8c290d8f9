package nodeimage

import (
	"time"

	"github.com/handover-sh/handover/waits"
)

// WaitBuildContainerd: the image build's wait, in the one table (waits).
const WaitBuildContainerd = "image-build-containerd"

func init() {
	waits.Register("clusters/nodeimage",
		waits.Wait{Name: WaitBuildContainerd, Default: 30 * time.Second, Doc: "containerd answers in the container a node image is assembled in"})
}
