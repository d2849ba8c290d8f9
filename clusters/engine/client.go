package engine

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/client"
)

// API is the part of the Engine API handover uses; *client.Client has it,
// and tests give a fake that counts calls.
type API interface {
	ContainerList(ctx context.Context, options container.ListOptions) ([]container.Summary, error)
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
	ContainerPause(ctx context.Context, id string) error
	ContainerUnpause(ctx context.Context, id string) error
	ContainerStop(ctx context.Context, id string, options container.StopOptions) error
	CopyToContainer(ctx context.Context, id, dstPath string, content io.Reader, options container.CopyToContainerOptions) error
	Events(ctx context.Context, options events.ListOptions) (<-chan events.Message, <-chan error)
}

// negotiateTimeout bounds the API version negotiation (a ping): an engine
// that does not answer by then is negotiated with on the first request.
const negotiateTimeout = 5 * time.Second

var (
	clientOnce sync.Once
	shared     *client.Client
	clientErr  error
)

// Client is the process's one Engine API client, configured like the
// docker CLI (DOCKER_HOST and friends) and speaking whichever API version
// the engine does.
func Client() (API, error) {
	clientOnce.Do(func() {
		shared, clientErr = client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
		if clientErr != nil {
			clientErr = fmt.Errorf("docker engine client: %w", clientErr)
			return
		}
		// Negotiated now, before any caller: the client negotiates on its
		// first request otherwise, writing its version while an event
		// stream already running reads it (a data race in the client).
		ctx, cancel := context.WithTimeout(context.Background(), negotiateTimeout)
		defer cancel()
		shared.NegotiateAPIVersion(ctx)
	})
	if clientErr != nil {
		return nil, clientErr
	}
	return shared, nil
}

// Inspect returns one container's full state.
func Inspect(ctx context.Context, name string) (container.InspectResponse, error) {
	api, err := Client()
	if err != nil {
		return container.InspectResponse{}, err
	}
	info, err := api.ContainerInspect(ctx, name)
	if err != nil {
		return info, fmt.Errorf("inspecting container %s: %w", name, err)
	}
	return info, nil
}

// IsNotFound says whether err is the engine's "no such container".
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }
