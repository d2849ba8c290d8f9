// Package enginetest is a fake Docker Engine for tests: named containers
// with labels and PIDs, every call counted, events sent by the test.
package enginetest

import (
	"context"
	"io"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
)

// Fake is an engine of named containers. Send on Send to deliver an
// event (a second send returns only once the first was handled); send on
// Errs to break the stream.
type Fake struct {
	Send chan events.Message
	Errs chan error

	mu         sync.Mutex
	containers []container.Summary
	pids       map[string]int
	calls      Calls
}

// Calls counts the calls the fake answered.
type Calls struct{ List, Inspect, Events, Other int }

// New is a fake with running containers of those names.
func New(names ...string) *Fake {
	f := &Fake{pids: map[string]int{}, Send: make(chan events.Message), Errs: make(chan error, 1)}
	for i, n := range names {
		f.Add(n, "running", 100+i, nil)
	}
	return f
}

// Add puts a container in the engine; its ID is "id-" + name.
func (f *Fake) Add(name, state string, pid int, labels map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := "id-" + name
	f.containers = append(f.containers, container.Summary{ID: id, Names: []string{"/" + name}, State: state, Labels: labels})
	f.pids[id] = pid
}

// Calls returns the counts so far.
func (f *Fake) Calls() Calls {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *Fake) ContainerList(context.Context, container.ListOptions) ([]container.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls.List++
	return append([]container.Summary(nil), f.containers...), nil
}

// ContainerInspect answers by ID or name, with the state Add or SetState
// gave; an unknown container is not found, as the engine says it.
func (f *Fake) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls.Inspect++
	for _, c := range f.containers {
		if c.ID == id || c.Names[0] == "/"+id {
			return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{
				ID: c.ID, State: &container.State{Running: c.State == "running", Paused: c.State == "paused", Pid: f.pids[c.ID]}}}, nil
		}
	}
	return container.InspectResponse{}, cerrdefs.ErrNotFound.WithMessage("No such container: " + id)
}

// SetState changes a container's state without an event, as a change the
// event stream has not told yet.
func (f *Fake) SetState(name, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range f.containers {
		if c.Names[0] == "/"+name {
			f.containers[i].State = state
		}
	}
}

func (f *Fake) other() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls.Other++
	return nil
}

func (f *Fake) ContainerPause(context.Context, string) error                       { return f.other() }
func (f *Fake) ContainerUnpause(context.Context, string) error                     { return f.other() }
func (f *Fake) ContainerStop(context.Context, string, container.StopOptions) error { return f.other() }
func (f *Fake) CopyToContainer(context.Context, string, string, io.Reader, container.CopyToContainerOptions) error {
	return f.other()
}

func (f *Fake) Events(context.Context, events.ListOptions) (<-chan events.Message, <-chan error) {
	f.mu.Lock()
	f.calls.Events++
	f.mu.Unlock()
	return f.Send, f.Errs
}
