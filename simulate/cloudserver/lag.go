package cloudserver

import (
	"net/http"
	"sort"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// The lag knob imitates an eventually consistent instance API: "the result
// of an API command you run that affects your Amazon EC2 resources might
// not be immediately visible to all subsequent commands you run", so an
// instance just launched may be "InvalidInstanceID.NotFound" and one just
// terminated still described as before ("Eventual consistency in the
// Amazon EC2 API", EC2 developer guide,
// https://docs.aws.amazon.com/ec2/latest/devguide/eventual-consistency.html).

// MaxLag bounds the knob: twice the "about five minutes" up to which the
// same page has callers back off between commands.
const MaxLag = 10 * time.Minute

// termination is an instance as it was when it was terminated, and when.
type termination struct {
	At       time.Time    `json:"at"`
	Instance api.Instance `json:"instance"`
}

// lagOf is how far the caller's view of instances trails the cloud's:
// the knob's lag for a component held to the account's limits (the
// managers, the kubelets), none for the cloud's own callers, which the
// throttle spares too (handover's agents and observers, the metadata
// services, a caller naming no component).
func (s *Server) lagOf(r *http.Request) time.Duration {
	lag := s.faults.get().Lag.Duration
	component := r.Header.Get(api.HeaderComponent)
	if _, held := budget(component, ""); lag <= 0 || component == "" || !held {
		return 0
	}
	return lag
}

// launching: the instance was launched less than lag ago. An instance
// with no launch time (a virtual one the state file brought back) is old.
// Callers hold s.mu.
func (s *Server) launching(in api.Instance, lag time.Duration, now time.Time) bool {
	at, ok := s.launched[in.Name]
	return ok && now.Sub(at) < lag
}

// lingering are the instances terminated less than lag ago, as they were,
// by name.
func (s *Server) lingering(lag time.Duration) []api.Instance {
	if lag <= 0 {
		return nil
	}
	now := s.opts.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []api.Instance
	for _, t := range s.state.Terminations {
		if now.Sub(t.At) < lag {
			out = append(out, t.Instance)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lagged is the caller's view of all, the cloud's instances: those
// launched less than its lag ago left out, those terminated less than it
// ago still there, as they were.
func (s *Server) lagged(r *http.Request, all []api.Instance) []api.Instance {
	lag := s.lagOf(r)
	if lag <= 0 {
		return all
	}
	all = append(all[:len(all):len(all)], s.lingering(lag)...)
	now := s.opts.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := all[:0:0]
	for _, in := range all {
		if !s.launching(in, lag, now) {
			out = append(out, in)
		}
	}
	return out
}

// stillLaunching: to the caller, the instance is not there yet.
func (s *Server) stillLaunching(r *http.Request, in api.Instance) bool {
	lag := s.lagOf(r)
	if lag <= 0 {
		return false
	}
	now := s.opts.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.launching(in, lag, now)
}

// dateLaunches records when each instance the backend listed was launched:
// the backend's time where it has one (never later than now, the cloud's
// first listing of it: nobody listing for a while must not lengthen the
// lag, and a machine made again under a name is new), else that first
// listing. A name the backend no longer lists is forgotten, so a machine
// made again under it is new there too. Callers hold s.mu.
func (s *Server) dateLaunches(all []api.Instance, times map[string]time.Time) {
	now := s.opts.Now()
	listed := make(map[string]bool, len(all))
	for _, in := range all {
		listed[in.Name] = true
		if at, ok := times[in.Name]; ok && at.Before(now) {
			s.launched[in.Name] = at
		} else if ok {
			s.launched[in.Name] = now
		} else if _, ok := s.launched[in.Name]; !ok {
			s.launched[in.Name] = now
		}
	}
	for name := range s.launched {
		if _, virtual := s.state.Virtual[name]; !listed[name] && !virtual {
			delete(s.launched, name)
		}
	}
}

// recordTermination keeps the instance as it was for the lag knob, and
// forgets terminations older than any lag. Callers hold s.mu.
func (s *Server) recordTermination(in api.Instance) {
	now := s.opts.Now()
	for name, t := range s.state.Terminations {
		if now.Sub(t.At) >= MaxLag {
			delete(s.state.Terminations, name)
		}
	}
	s.state.Terminations[in.Name] = termination{At: now, Instance: in}
}
