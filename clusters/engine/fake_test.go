package engine

import (
	"context"
	"io"
	"sync"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
)

// fakeAPI is an engine of named containers that counts calls and lets a
// test send events.
type fakeAPI struct {
	mu         sync.Mutex
	containers []container.Summary
	pids       map[string]int
	lists      int
	inspects   int
	events     chan events.Message
	errs       chan error
}

func newFake(names ...string) *fakeAPI {
	f := &fakeAPI{pids: map[string]int{}, events: make(chan events.Message), errs: make(chan error, 1)}
	for i, n := range names {
		f.add(n, "running", 100+i)
	}
	return f
}

func (f *fakeAPI) add(name, state string, pid int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := "id-" + name
	f.containers = append(f.containers, container.Summary{ID: id, Names: []string{"/" + name}, State: state,
		Labels: map[string]string{"role": "worker"}})
	f.pids[id] = pid
}

func (f *fakeAPI) counts() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists, f.inspects
}

func (f *fakeAPI) ContainerList(context.Context, container.ListOptions) ([]container.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	return append([]container.Summary(nil), f.containers...), nil
}

func (f *fakeAPI) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inspects++
	return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{
		ID: id, State: &container.State{Running: true, Pid: f.pids[id]}}}, nil
}

func (f *fakeAPI) ContainerPause(context.Context, string) error                       { return nil }
func (f *fakeAPI) ContainerUnpause(context.Context, string) error                     { return nil }
func (f *fakeAPI) ContainerStop(context.Context, string, container.StopOptions) error { return nil }
func (f *fakeAPI) CopyToContainer(context.Context, string, string, io.Reader, container.CopyToContainerOptions) error {
	return nil
}

func (f *fakeAPI) Events(ctx context.Context, _ events.ListOptions) (<-chan events.Message, <-chan error) {
	return f.events, f.errs
}
