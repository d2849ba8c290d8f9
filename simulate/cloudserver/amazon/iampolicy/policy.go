// Package iampolicy reads an IAM identity-based policy, as a user writes
// one for a component's role, and decides which actions it allows, by
// AWS's policy evaluation logic for a single identity-based policy: an
// explicit Deny wins, then an Allow, and anything else is denied
// ("Policy evaluation logic", IAM User Guide).
//
// Only actions are matched exactly. A statement whose Resource is not
// "*", or that has a NotResource or a Condition, names resources and
// request context the simulated cloud does not model: such an Allow
// allows nothing and such a Deny denies its actions outright, so the
// simulation is never kinder than AWS (Approximated lists them).
package iampolicy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
)

// MaxSize bounds a policy document: AWS's largest (a role's inline
// policies, 10,240 characters) with room for whitespace.
const MaxSize = 64 << 10

// Policy is a parsed identity-based policy.
type Policy struct {
	Statements []Statement
}

// Statement is one statement, as handover evaluates it.
type Statement struct {
	Sid    string
	Allow  bool
	Action []string // patterns; NotAction when Not
	Not    bool
	// Exact: its Resource is "*", with no NotResource or Condition.
	Exact bool
}

// Decision is what a policy decides of one action.
type Decision struct {
	Allowed bool
	// Explicit: a Deny statement matched (else an Allow did, or none).
	Explicit bool
	// By names the deciding statement (its Sid, or its position).
	By string
}

// Parse reads a policy document: JSON, with Version, an optional Id and
// Statement (one object or a list). A field IAM does not have, a
// Principal (an identity-based policy has none) or an Effect other than
// Allow or Deny is refused, as IAM refuses the document
// (MalformedPolicyDocument).
func Parse(data []byte) (Policy, error) {
	if len(data) > MaxSize {
		return Policy{}, fmt.Errorf("the policy is %d bytes; IAM's largest is 10,240 characters", len(data))
	}
	var doc struct {
		Version   string          `json:"Version"`
		ID        string          `json:"Id"`
		Statement json.RawMessage `json:"Statement"`
	}
	if err := strictDecode(data, &doc); err != nil {
		return Policy{}, fmt.Errorf("the policy: %w", err)
	}
	if doc.Version != "2012-10-17" && doc.Version != "2008-10-17" {
		return Policy{}, fmt.Errorf("the policy's Version %q: IAM knows 2012-10-17 and 2008-10-17", doc.Version)
	}
	raws, err := oneOrMany[json.RawMessage](doc.Statement)
	if err != nil || len(raws) == 0 {
		return Policy{}, errors.New("the policy has no Statement")
	}
	var p Policy
	for i, raw := range raws {
		s, err := parseStatement(raw)
		if err != nil {
			return Policy{}, fmt.Errorf("statement %d: %w", i+1, err)
		}
		if s.Sid == "" {
			s.Sid = fmt.Sprintf("statement %d", i+1)
		}
		p.Statements = append(p.Statements, s)
	}
	return p, nil
}

type rawStatement struct {
	Sid          string          `json:"Sid"`
	Effect       string          `json:"Effect"`
	Action       json.RawMessage `json:"Action"`
	NotAction    json.RawMessage `json:"NotAction"`
	Resource     json.RawMessage `json:"Resource"`
	NotResource  json.RawMessage `json:"NotResource"`
	Condition    json.RawMessage `json:"Condition"`
	Principal    json.RawMessage `json:"Principal"`
	NotPrincipal json.RawMessage `json:"NotPrincipal"`
}

func parseStatement(raw json.RawMessage) (Statement, error) {
	var r rawStatement
	if err := strictDecode(raw, &r); err != nil {
		return Statement{}, err
	}
	var s Statement
	switch r.Effect {
	case "Allow":
		s.Allow = true
	case "Deny":
	default:
		return s, fmt.Errorf("its Effect %q: Allow or Deny", r.Effect)
	}
	if r.Principal != nil || r.NotPrincipal != nil {
		return s, errors.New("an identity-based policy has no Principal (IAM refuses it)")
	}
	if (r.Action == nil) == (r.NotAction == nil) {
		return s, errors.New("one of Action and NotAction, not both")
	}
	actions := r.Action
	if r.NotAction != nil {
		actions, s.Not = r.NotAction, true
	}
	var err error
	if s.Action, err = oneOrMany[string](actions); err != nil || len(s.Action) == 0 {
		return s, errors.New("its Action: a string or a list of strings, at least one")
	}
	for _, a := range s.Action {
		if a != "*" && !strings.Contains(a, ":") {
			return s, fmt.Errorf("its Action %q: SERVICE:ACTION or *", a)
		}
	}
	if (r.Resource == nil) == (r.NotResource == nil) {
		return s, errors.New("one of Resource and NotResource, not both")
	}
	resources, _ := oneOrMany[string](r.Resource)
	s.Exact = r.NotResource == nil && r.Condition == nil && len(resources) == 1 && resources[0] == "*"
	s.Sid = r.Sid
	return s, nil
}

// Decide is what the policy decides of action (SERVICE:ACTION).
func (p Policy) Decide(action string) Decision {
	var allow *Statement
	for i := range p.Statements {
		s := &p.Statements[i]
		if !s.matches(action) {
			continue
		}
		if !s.Allow {
			return Decision{Explicit: true, By: s.Sid} // a Deny wins; inexact, it applies outright
		}
		if s.Exact && allow == nil {
			allow = s
		}
	}
	if allow != nil {
		return Decision{Allowed: true, By: allow.Sid}
	}
	return Decision{}
}

// Approximated are the statements handover cannot evaluate exactly
// (Statement.Exact), by Sid.
func (p Policy) Approximated() []string {
	var out []string
	for _, s := range p.Statements {
		if !s.Exact {
			out = append(out, s.Sid)
		}
	}
	return out
}

func (s Statement) matches(action string) bool {
	hit := false
	for _, pattern := range s.Action {
		if ok, _ := path.Match(strings.ToLower(pattern), strings.ToLower(action)); ok || pattern == "*" {
			hit = true
			break
		}
	}
	return hit != s.Not
}

// oneOrMany reads a JSON value that is one T or a list of them.
func oneOrMany[T any](raw json.RawMessage) ([]T, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var many []T
	if err := json.Unmarshal(raw, &many); err == nil {
		return many, nil
	}
	var one T
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, err
	}
	return []T{one}, nil
}

// strictDecode reads one JSON object into into, refusing a field into
// has not under its exact name (IAM's element names are case-sensitive;
// encoding/json's matching is not) and anything after the object.
func strictDecode(data []byte, into any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	var fields map[string]json.RawMessage
	if err := d.Decode(&fields); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the document")
	}
	known := jsonNames(into)
	for name := range fields {
		if !known[name] {
			return fmt.Errorf("unknown element %q", name)
		}
	}
	return json.Unmarshal(data, into)
}

// jsonNames are the JSON names of the struct into points to.
func jsonNames(into any) map[string]bool {
	t := reflect.TypeOf(into).Elem()
	out := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = true
	}
	return out
}
