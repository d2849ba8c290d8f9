package host

import (
	"context"
	"fmt"

	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/host/capfilter"
)

// WrapperName is the runtime name registered in Docker's daemon.json.
const WrapperName = "handover-runc"

// DefaultWrapperPath is where Prepare installs the runtime wrapper.
const DefaultWrapperPath = "/usr/local/lib/handover/" + WrapperName

// Options configure Prepare.
type Options struct {
	Logger log.Logger
	// WrapperSource is a binary that behaves as the runtime wrapper when
	// invoked under the name handover-runc (normally the handover binary).
	WrapperSource string
	// WrapperPath is where the wrapper is installed.
	WrapperPath string
	// DaemonJSON is Docker's daemon configuration file.
	DaemonJSON string
	// DockerPIDFile is where dockerd records its pid (DockerPIDFile).
	DockerPIDFile string
}

// withDefaults fills in the host's own paths.
func (o Options) withDefaults() Options {
	if o.WrapperPath == "" {
		o.WrapperPath = DefaultWrapperPath
	}
	if o.DaemonJSON == "" {
		o.DaemonJSON = "/etc/docker/daemon.json"
	}
	if o.DockerPIDFile == "" {
		o.DockerPIDFile = DockerPIDFile
	}
	return o
}

// Prepare makes Docker usable for kind nodes on this host and returns the
// actions it took (empty when nothing was needed).
func Prepare(ctx context.Context, o Options) ([]string, error) {
	o = o.withDefaults()
	var done []string
	record := func(msg string) {
		done = append(done, msg)
		o.Logger.V(0).Info(" • " + msg)
	}
	if err := ensureDocker(ctx, record); err != nil {
		return done, err
	}
	if err := ensureBuildTools(ctx, record); err != nil {
		return done, err
	}
	if err := ensureCapabilityWrapper(ctx, o, record); err != nil {
		return done, err
	}
	if err := ensureCgroupControllers(record); err != nil {
		return done, err
	}
	if err := ensureSysctls(record); err != nil {
		return done, err
	}
	return done, nil
}

// MissingCapabilities lists capabilities the kernel knows but this process's
// bounding set lacks: what `docker run --privileged` would fail to apply.
func MissingCapabilities() ([]string, error) {
	bnd, err := capfilter.ReadBoundingSet()
	if err != nil {
		return nil, err
	}
	last, err := capfilter.LastCap()
	if err != nil {
		return nil, err
	}
	return bnd.Missing(last), nil
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
