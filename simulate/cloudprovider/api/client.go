package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// StatusError is a call the cloud answered with an error status.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string { return fmt.Sprintf("simcloud: %d: %s", e.Code, e.Message) }

// IsNotFound reports whether err is the cloud's 404.
func IsNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == http.StatusNotFound
}

// Client calls simcloud as one component (and, for kubelets, one node).
type Client struct {
	BaseURL   string
	Component string
	Node      string
	UserAgent string
	// Token is the cloud's credential for this cluster, sent as a bearer
	// token on every call (the cloud refuses calls without it).
	Token string
	HTTP  *http.Client
}

// NewClient returns a client with a bounded per-call timeout.
func NewClient(baseURL, component string) *Client {
	return &Client{BaseURL: baseURL, Component: component, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

func (c *Client) do(ctx context.Context, controller, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return err
	}
	c.Sign(req)
	req.Header.Set(HeaderController, controller)
	if c.Node != "" {
		req.Header.Set(HeaderNode, c.Node)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("simcloud %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e Error
		_ = json.Unmarshal(raw, &e)
		return &StatusError{Code: resp.StatusCode, Message: e.Message}
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// Sign sets what every call carries: the caller's name and the cloud's
// token.
func (c *Client) Sign(req *http.Request) {
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	req.Header.Set(HeaderComponent, c.Component)
}

// Instances lists every instance.
func (c *Client) Instances(ctx context.Context, controller string) ([]Instance, error) {
	var out []Instance
	err := c.do(ctx, controller, http.MethodGet, "/v1/instances", nil, &out)
	return out, err
}

// Instance returns one instance by name.
func (c *Client) Instance(ctx context.Context, controller, name string) (*Instance, error) {
	var out Instance
	if err := c.do(ctx, controller, http.MethodGet, "/v1/instances/"+url.PathEscape(name), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// InstanceByProviderID returns one instance by ProviderID.
func (c *Client) InstanceByProviderID(ctx context.Context, controller, providerID string) (*Instance, error) {
	var out Instance
	if err := c.do(ctx, controller, http.MethodGet, "/v1/instances-by-provider-id/"+url.PathEscape(providerID), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// TerminateInstance makes an instance disappear, as a cloud console would.
func (c *Client) TerminateInstance(ctx context.Context, name string) error {
	return c.do(ctx, "", http.MethodDelete, "/v1/instances/"+url.PathEscape(name), nil, nil)
}

// LoadBalancer returns a load balancer, or nil if it does not exist.
func (c *Client) LoadBalancer(ctx context.Context, controller, name string) (*LoadBalancer, error) {
	var out LoadBalancer
	err := c.do(ctx, controller, http.MethodGet, "/v1/loadbalancers/"+url.PathEscape(name), nil, &out)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// LoadBalancers lists every load balancer.
func (c *Client) LoadBalancers(ctx context.Context, controller string) ([]LoadBalancer, error) {
	var out []LoadBalancer
	err := c.do(ctx, controller, http.MethodGet, "/v1/loadbalancers", nil, &out)
	return out, err
}

// EnsureLoadBalancer creates or updates a load balancer.
func (c *Client) EnsureLoadBalancer(ctx context.Context, controller, name string, spec LoadBalancerSpec) (*LoadBalancer, error) {
	var out LoadBalancer
	if err := c.do(ctx, controller, http.MethodPut, "/v1/loadbalancers/"+url.PathEscape(name), spec, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateLoadBalancer changes an existing load balancer; a missing one is a
// not-found error (IsNotFound), never created.
func (c *Client) UpdateLoadBalancer(ctx context.Context, controller, name string, spec LoadBalancerSpec) (*LoadBalancer, error) {
	var out LoadBalancer
	if err := c.do(ctx, controller, http.MethodPatch, "/v1/loadbalancers/"+url.PathEscape(name), spec, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteLoadBalancer deletes a load balancer; a missing one is not an error.
func (c *Client) DeleteLoadBalancer(ctx context.Context, controller, name string) error {
	err := c.do(ctx, controller, http.MethodDelete, "/v1/loadbalancers/"+url.PathEscape(name), nil, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}

// Routes lists the route table.
func (c *Client) Routes(ctx context.Context, controller string) ([]Route, error) {
	var out []Route
	err := c.do(ctx, controller, http.MethodGet, "/v1/routes", nil, &out)
	return out, err
}

// CreateRoute adds or replaces a route.
func (c *Client) CreateRoute(ctx context.Context, controller string, r Route) error {
	return c.do(ctx, controller, http.MethodPut, "/v1/routes/"+url.PathEscape(r.Name), r, nil)
}

// DeleteRoute removes a route; a missing one is not an error.
func (c *Client) DeleteRoute(ctx context.Context, controller, name string) error {
	err := c.do(ctx, controller, http.MethodDelete, "/v1/routes/"+url.PathEscape(name), nil, nil)
	if IsNotFound(err) {
		return nil
	}
	return err
}

// Faults returns the fault knobs in force.
func (c *Client) Faults(ctx context.Context) (Faults, error) {
	var out Faults
	err := c.do(ctx, "", http.MethodGet, "/v1/faults", nil, &out)
	return out, err
}

// SetFaults replaces the fault knobs.
func (c *Client) SetFaults(ctx context.Context, f Faults) error {
	return c.do(ctx, "", http.MethodPut, "/v1/faults", f, nil)
}

// Audit returns the audit entries recorded since t.
func (c *Client) Audit(ctx context.Context, since time.Time) ([]AuditEntry, error) {
	var out []AuditEntry
	err := c.do(ctx, "", http.MethodGet, "/v1/audit?since="+url.QueryEscape(since.Format(time.RFC3339Nano)), nil, &out)
	return out, err
}

// AllocatePodCIDR returns the instance's pod range, allocating (or
// adopting) it on first use.
func (c *Client) AllocatePodCIDR(ctx context.Context, controller, instance string, req PodCIDRRequest) (string, error) {
	var out PodCIDR
	err := c.do(ctx, controller, http.MethodPut, "/v1/instances/"+url.PathEscape(instance)+"/pod-cidr", req, &out)
	return out.CIDR, err
}

// FaceCall asks the cloud to decide the knobs (and audit) of a call a
// face answers from its own state: op is the face's name for it
// (SERVICE:ACTION), controller what the audit names as the caller's. A
// refusal is the knob's StatusError.
func (c *Client) FaceCall(ctx context.Context, controller, op string) error {
	return c.do(ctx, controller, http.MethodPost, "/v1/face-calls/"+url.PathEscape(op), nil, nil)
}

// FaceRefused tells the cloud that its face refused a call of op itself
// (fault names why: "iam", the caller's policy), so the audit holds it as
// the caller's refused call; its answer is that refusal.
func (c *Client) FaceRefused(ctx context.Context, controller, op, fault string) error {
	return c.do(ctx, controller, http.MethodPost, "/v1/face-refusals/"+url.PathEscape(op)+"?fault="+url.QueryEscape(fault), nil, nil)
}

// RegistryToken asks the cloud for a credential for its registry, as a
// kubelet's image credential provider does before a pull.
func (c *Client) RegistryToken(ctx context.Context, controller string) (*RegistryToken, error) {
	var out RegistryToken
	if err := c.do(ctx, controller, http.MethodPost, "/v1/registry/token", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
