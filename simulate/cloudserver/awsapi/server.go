package awsapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go/private/protocol/json/jsonutil"
)

// MaxBody bounds a request's body: a load balancer's registration of 500
// instances is about 25 KiB.
const MaxBody = 1 << 20

// Key is one access key the cloud issued, and to whom.
type Key struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
	// Principal is the component the key was issued to: the audit's
	// caller.
	Principal string `json:"principal"`
	// Node is the node whose component holds the key (a kubelet's: one
	// key a node), "" for a cluster-wide component's.
	Node string `json:"node,omitempty"`
}

// KeyStore finds an issued key by its access key ID.
type KeyStore interface {
	Key(id string) (Key, bool)
}

// Keys are the issued keys by access key ID.
type Keys map[string]Key

// Key is the key with id.
func (k Keys) Key(id string) (Key, bool) {
	key, ok := k[id]
	return key, ok
}

// Record is what the server reports of each call it answers.
type Record struct {
	Time       time.Time `json:"time"`
	Service    string    `json:"service"`
	Action     string    `json:"action"`
	Principal  string    `json:"principal,omitempty"` // "" when the signature was refused
	Node       string    `json:"node,omitempty"`      // the signing key's node, for a per-node key
	RemoteAddr string    `json:"remoteAddr"`
	Status     int       `json:"status"`
	Code       string    `json:"code,omitempty"` // the error code, "" on success
	Message    string    `json:"message,omitempty"`
	Fault      string    `json:"fault,omitempty"` // the knob behind a refusal
	// Unimplemented: the action is one the cloud does not serve.
	Unimplemented bool `json:"unimplemented,omitempty"`
}

// The call log's reading of a record (calllog.Entry).
func (r Record) At() time.Time                { return r.Time }
func (r Record) Of() (service, action string) { return r.Service, r.Action }
func (r Record) Refused() bool                { return r.Status >= 400 }
func (r Record) NotServed() bool              { return r.Unimplemented }

// Options configure a Server.
type Options struct {
	Region string
	Keys   KeyStore
	Now    func() time.Time
	// Gate, when set, may refuse a verified call before its action runs
	// (the cloud's throttling, outages and denials), unless the action
	// Reaches the cloud, whose knobs then decide.
	Gate func(context.Context, Call, Refusals) *Error
	// Authorize, when set, decides whether the caller's identity may make
	// a verified call of an action served (its IAM policy), before the
	// Gate and the action: a refusal is answered as it is.
	Authorize func(context.Context, Call, Refusals) *Error
	// Record, when set, is told of every call answered.
	Record func(Record)
}

// Server serves Services, each at /<Name>/; a JSON 1.1 service also at /,
// by the X-Amz-Target its callers send (as at its own endpoint, the SDKs'
// default).
type Server struct {
	opts     Options
	services map[string]Service
}

// NewServer checks the services and serves them.
func NewServer(o Options, services ...Service) (*Server, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Region == "" || o.Keys == nil {
		return nil, errors.New("awsapi: a server needs its region and its keys")
	}
	s := &Server{opts: o, services: map[string]Service{}}
	for _, svc := range services {
		if err := svc.check(); err != nil {
			return nil, err
		}
		s.services[svc.Name] = svc
	}
	return s, nil
}

// ServeHTTP answers POST /<service>/ (and GET with the parameters in the
// query string, as the query protocol allows).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svc, ok := s.lookup(r)
	if !ok {
		http.Error(w, fmt.Sprintf("no AWS service at %s: this cloud serves %s", r.URL.Path, strings.Join(s.serviceNames(), ", ")), http.StatusNotFound)
		return
	}
	rec := Record{Time: s.opts.Now(), Service: svc.Name, RemoteAddr: r.RemoteAddr, Status: http.StatusOK}
	reqID := newRequestID()
	out, call, err := s.serve(svc, r)
	rec.Action, rec.Principal, rec.Node = call.Action, call.Key.Principal, call.Key.Node
	if err == nil {
		err = writeAnswer(w, svc, call.Action, out, reqID)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Status: http.StatusInternalServerError, Code: "InternalFailure", Message: err.Error()}
		}
		rec.Status, rec.Code, rec.Message, rec.Fault = e.Status, e.Code, e.Message, e.Fault
		rec.Unimplemented = e.Code == "InvalidAction" && call.Action != ""
		writeError(w, svc.Protocol, e, reqID)
	}
	if s.opts.Record != nil {
		s.opts.Record(rec)
	}
}

// lookup finds the service a request is for: by its path, or at / by
// the target prefix of a JSON 1.1 service.
func (s *Server) lookup(r *http.Request) (Service, bool) {
	name := strings.Trim(r.URL.Path, "/")
	if name != "" {
		svc, ok := s.services[name]
		return svc, ok
	}
	prefix, _, found := strings.Cut(r.Header.Get("X-Amz-Target"), ".")
	for _, svc := range s.services {
		if found && svc.Protocol == JSON11 && svc.TargetPrefix == prefix {
			return svc, true
		}
	}
	return Service{}, false
}

func (s *Server) serviceNames() []string {
	var names []string
	for n := range s.services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// serve verifies, decodes and answers one call.
func (s *Server) serve(svc Service, r *http.Request) (any, Call, error) {
	call := Call{Service: svc.Name, RemoteAddr: r.RemoteAddr}
	if svc.TLSOnly && r.TLS == nil {
		return nil, call, &Error{Status: http.StatusForbidden, Code: "AccessDeniedException", Message: svc.Name + " answers over TLS only: its answers are credentials"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBody))
	if err != nil {
		return nil, call, Errorf("InvalidRequest", "reading the request body: %v", err)
	}
	var form url.Values
	if svc.Protocol == JSON11 {
		call.Action, _ = strings.CutPrefix(r.Header.Get("X-Amz-Target"), svc.TargetPrefix+".")
	} else {
		var perr error
		if form, perr = url.ParseQuery(string(body)); perr != nil {
			return nil, call, Errorf("MalformedQueryString", "%v", perr)
		}
		for k, v := range r.URL.Query() {
			form[k] = append(form[k], v...)
		}
		call.Action = form.Get("Action")
	}
	key, verr := verify(r, body, s.opts.Keys, svc.Name, s.opts.Region, s.opts.Now())
	if verr != nil {
		return nil, call, verr
	}
	call.Key = key
	if call.Action == "" {
		return nil, call, errMissingAction()
	}
	act, ok := svc.action(call.Action)
	if !ok {
		return nil, call, errInvalidAction(call.Action)
	}
	in := act.In()
	if err := decodeInput(svc.Protocol, form, body, in); err != nil {
		return nil, call, err
	}
	if s.opts.Authorize != nil {
		if e := s.opts.Authorize(r.Context(), call, svc.Refusals); e != nil {
			return nil, call, e
		}
	}
	if s.opts.Gate != nil && !act.Reaches {
		if e := s.opts.Gate(r.Context(), call, svc.Refusals); e != nil {
			return nil, call, e
		}
	}
	out, err := act.Do(r.Context(), call, in)
	return out, call, err
}

// decodeInput reads a call's parameters into in, as its protocol frames
// them; a parameter the input does not have is refused (query protocols).
func decodeInput(p Protocol, form url.Values, body []byte, in any) error {
	if p == JSON11 {
		if len(bytes.TrimSpace(body)) == 0 {
			return nil
		}
		if err := jsonutil.UnmarshalJSON(in, bytes.NewReader(body)); err != nil {
			return Errorf("SerializationException", "%v", err)
		}
		return nil
	}
	unknown, err := decodeQuery(form, in, p == EC2Query)
	if err != nil {
		return Errorf("InvalidParameterValue", "%v", err)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Errorf("UnknownParameter", "The parameter %s is not recognized.", unknown[0])
	}
	return nil
}

// jsonContentType is the JSON 1.1 protocol's.
const jsonContentType = "application/x-amz-json-1.1"

// writeAnswer encodes out in the service's envelope.
func writeAnswer(w http.ResponseWriter, svc Service, action string, out any, reqID string) error {
	if svc.Protocol == JSON11 {
		body, err := jsonutil.BuildJSON(out)
		if err != nil {
			return fmt.Errorf("encoding the answer to %s: %w", action, err)
		}
		w.Header().Set("Content-Type", jsonContentType)
		w.Header().Set("X-Amzn-Requestid", reqID)
		_, err = w.Write(body)
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	x := xmlWriter{enc: enc}
	root := xml.StartElement{Name: xml.Name{Local: action + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: svc.Namespace}}}
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	var err error
	if svc.Protocol == EC2Query {
		err = errors.Join(x.text("requestId", reqID), x.fields(reflect.ValueOf(out)))
	} else {
		err = errors.Join(x.wrap(action+"Result", func() error { return x.fields(reflect.ValueOf(out)) }),
			x.wrap("ResponseMetadata", func() error { return x.text("RequestId", reqID) }))
	}
	if err != nil {
		return fmt.Errorf("encoding the answer to %s: %w", action, err)
	}
	if err := errors.Join(enc.EncodeToken(root.End()), enc.Flush()); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.Header().Set("X-Amzn-Requestid", reqID)
	_, err = w.Write(buf.Bytes())
	return err
}

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
