package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// Container is what handover needs of a container, all of it from one list
// call.
type Container struct {
	ID, Name, Image string
	Labels          map[string]string
	State           string // created, running, paused, exited, ...
	IPv4, IPv6      string // on kind's network (any one, on a container not on it)
	// Networks are its IPv4 addresses by network name: more than one
	// where a second network was connected, as a second interface.
	Networks map[string]string
	// Created is when the engine made it (to the second).
	Created time.Time
}

// KindNetwork is the network kind puts its nodes on: a node's own
// address is there, whatever else it joins.
const KindNetwork = "kind"

// Running says whether its processes run (a paused container's exist but
// are frozen).
func (c Container) Running() bool { return c.State == "running" || c.State == "paused" }

// Set is the containers carrying one label value, listed once and then
// kept current by the engine's event stream: a read after no event costs
// no call at all. While the stream is down (or just reconnected, when an
// event could have slipped between list and stream) reads list again.
type Set struct {
	api      API
	selector string // label=value
	// settle is how long after (re)connecting the stream is not trusted.
	settle time.Duration

	mu         sync.Mutex
	byName     map[string]Container
	listed     bool
	trustAfter time.Time // zero: stream down
	pids       map[string]int
	stop       context.CancelFunc
}

// Option changes a Set.
type Option func(*Set)

// WithSettle sets how long after the event stream (re)connects reads still
// list (default 1s): an event between a list and the stream's start would
// otherwise be missed.
func WithSettle(d time.Duration) Option { return func(s *Set) { s.settle = d } }

// NewSet watches the containers labelled selector ("label=value") through
// api until ctx ends.
func NewSet(ctx context.Context, api API, selector string, opts ...Option) *Set {
	ctx, cancel := context.WithCancel(ctx)
	s := &Set{api: api, selector: selector, settle: time.Second, pids: map[string]int{}, stop: cancel}
	for _, o := range opts {
		o(s)
	}
	go s.follow(ctx)
	return s
}

// Connected says whether the event stream is up and settled, so reads are
// answered from the cache.
func (s *Set) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.trustAfter.IsZero() && time.Now().After(s.trustAfter)
}

// Close stops following the event stream.
func (s *Set) Close() { s.stop() }

// follow invalidates the set on every event of its containers, and
// reconnects when the stream fails.
func (s *Set) follow(ctx context.Context) {
	for ctx.Err() == nil {
		sctx, cancel := context.WithCancel(ctx)
		msgs, errs := s.api.Events(sctx, events.ListOptions{Filters: stateEvents(s.selector)})
		nets, netErrs := s.api.Events(sctx, events.ListOptions{Filters: networkEvents()})
		s.mu.Lock()
		s.trustAfter = time.Now().Add(s.settle)
		s.mu.Unlock()
		s.consume(ctx, msgs, errs, nets, netErrs)
		cancel()
		s.mu.Lock()
		s.trustAfter = time.Time{}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// stateEvents selects the events that change what a list shows (not the
// exec events every action causes).
func stateEvents(selector string) filters.Args {
	f := filters.NewArgs(filters.Arg("type", string(events.ContainerEventType)), filters.Arg("label", selector))
	for _, e := range []events.Action{events.ActionCreate, events.ActionStart, events.ActionDie, events.ActionDestroy,
		events.ActionPause, events.ActionUnPause, events.ActionRename} {
		f.Add("event", string(e))
	}
	return f
}

// networkEvents select a container joining or leaving a network, which
// changes its addresses: a network's events carry no container labels,
// so every one counts (they are rare).
func networkEvents() filters.Args {
	return filters.NewArgs(filters.Arg("type", string(events.NetworkEventType)),
		filters.Arg("event", string(events.ActionConnect)), filters.Arg("event", string(events.ActionDisconnect)))
}

func (s *Set) consume(ctx context.Context, msgs <-chan events.Message, errs <-chan error, nets <-chan events.Message, netErrs <-chan error) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-errs:
			return
		case <-netErrs:
			return
		case <-nets:
			s.mu.Lock()
			s.listed = false
			s.mu.Unlock()
		case m := <-msgs:
			s.mu.Lock()
			s.listed = false
			delete(s.pids, m.Actor.ID)
			s.mu.Unlock()
		}
	}
}

// trusted says whether the cached list is current.
func (s *Set) trusted() bool {
	return s.listed && !s.trustAfter.IsZero() && time.Now().After(s.trustAfter)
}

// List returns the containers by name.
func (s *Set) List(ctx context.Context) ([]Container, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.trusted() {
		if err := s.relist(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]Container, 0, len(s.byName))
	for _, c := range s.byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *Set) relist(ctx context.Context) error {
	got, err := s.api.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", s.selector))})
	if err != nil {
		return fmt.Errorf("listing containers with %s: %w", s.selector, err)
	}
	byName := make(map[string]Container, len(got))
	for _, c := range got {
		byName[nameOf(c)] = summarize(c)
	}
	s.byName, s.listed = byName, true
	return nil
}

// Get returns one container by name.
func (s *Set) Get(ctx context.Context, name string) (Container, bool, error) {
	all, err := s.List(ctx)
	if err != nil {
		return Container{}, false, err
	}
	for _, c := range all {
		if c.Name == name {
			return c, true, nil
		}
	}
	return Container{}, false, nil
}

// PID is the host PID of a running container's init, inspected once per
// start of the container.
func (s *Set) PID(ctx context.Context, name string) (int, error) {
	c, ok, err := s.Get(ctx, name)
	if err != nil {
		return 0, err
	}
	if !ok || !c.Running() {
		return 0, fmt.Errorf("container %s is not running", name)
	}
	s.mu.Lock()
	pid, ok := s.pids[c.ID]
	s.mu.Unlock()
	if ok {
		return pid, nil
	}
	info, err := s.api.ContainerInspect(ctx, c.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("inspecting %s: %w", name, err)
	}
	if info.State == nil || info.State.Pid == 0 {
		return 0, fmt.Errorf("container %s is not running", name)
	}
	s.pids[c.ID] = info.State.Pid
	return info.State.Pid, nil
}

// Running asks the engine now whether the named container runs, for a
// caller that waits on it: a container that died and left the cache
// believing it runs (an event read before the engine's list showed the
// change) would hold such a wait for good. A container the engine does
// not know is not running. An answer that differs from the cache's makes
// the next read list again.
func (s *Set) Running(ctx context.Context, name string) (bool, error) {
	info, err := s.api.ContainerInspect(ctx, name)
	if IsNotFound(err) {
		s.Invalidate()
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspecting %s: %w", name, err)
	}
	up := info.State != nil && (info.State.Running || info.State.Paused)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.byName[name]; !ok || c.Running() != up {
		s.listed = false
	}
	return up, nil
}

// Invalidate forgets the list: the next read lists again (after handover's
// own add or remove, before the event arrives).
func (s *Set) Invalidate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listed = false
}

func nameOf(c container.Summary) string {
	if len(c.Names) == 0 {
		return c.ID
	}
	return strings.TrimPrefix(c.Names[0], "/")
}

func summarize(c container.Summary) Container {
	out := Container{ID: c.ID, Name: nameOf(c), Image: c.Image, Labels: c.Labels, State: c.State, Created: time.Unix(c.Created, 0)}
	if c.NetworkSettings == nil {
		return out
	}
	out.Networks = map[string]string{}
	for name, n := range c.NetworkSettings.Networks {
		if n == nil {
			continue
		}
		out.Networks[name] = n.IPAddress
		if out.IPv4 == "" || name == KindNetwork {
			out.IPv4, out.IPv6 = n.IPAddress, n.GlobalIPv6Address
		}
	}
	return out
}
