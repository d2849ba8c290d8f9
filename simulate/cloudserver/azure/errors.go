package azure

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// armError is an ARM refusal: its status and the body every ARM error
// has, {"error":{"code","message"}} (the track-1 SDK's
// azure.ServiceError, go-autorest@v0.11.29 autorest/azure/azure.go).
type armError struct {
	Status  int
	Code    string
	Message string
	// RetryAfter, when set, is sent as Retry-After (throttling).
	RetryAfter time.Duration
	// Fault is the cloud's knob behind the refusal, for the call log.
	Fault string
	// Unimplemented: ARM would serve the call; this face does not.
	Unimplemented bool
}

func (e *armError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func errorf(status int, code, format string, args ...any) *armError {
	return &armError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// errLimit refuses a request ARM would take and this cloud cannot carry.
func errLimit(format string, args ...any) *armError {
	e := errorf(http.StatusBadRequest, "InvalidRequestFormat", format, args...)
	e.Unimplemented = true
	return e
}

// errUnserved refuses what ARM would do and this face does not.
func errUnserved(format string, args ...any) *armError {
	e := errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", format, args...)
	e.Unimplemented = true
	return e
}

// write sends the error as ARM does.
func (e *armError) write(w http.ResponseWriter) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	body := map[string]any{"error": map[string]string{"code": e.Code, "message": e.Message}}
	writeJSON(w, e.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// asARM is err as ARM answers it: an armError as itself, anything else
// a 500.
func asARM(err error) *armError {
	var e *armError
	if errors.As(err, &e) {
		return e
	}
	return errorf(http.StatusInternalServerError, "InternalServerError", "%v", err)
}

// errNotFound is ARM's answer for a resource that does not exist in an
// existing resource group, as clouditor/clouditor#534 (a public IP) and
// Azure/azure-cli#16539 (an interface) quote it; the providers read the
// status (404: gone) and the code (cloud-provider-azure@v1.30.4
// pkg/consts ResourceNotFoundMessageCode).
func (n Network) errNotFound(typ, name string) *armError {
	return errorf(http.StatusNotFound, "ResourceNotFound",
		"The Resource '%s/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix", typ, name, n.group())
}

// errNoGroup is ARM's answer for a resource group that does not exist.
// The providers' armclient retries such a call once on the regional host
// ("<location>.<host>", legacy-cloud-providers@v0.29.15
// azure/clients/armclient Send) and keeps this answer when that fails too.
func errNoGroup(group string) *armError {
	return errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", group)
}

// errPrecondition is the answer to a write whose If-Match is not the
// resource's etag; the providers drop their cached copy on it
// (cloud-provider-azure@v1.30.4 pkg/provider/azure_loadbalancer_repo.go,
// legacy-cloud-providers@v0.29.15 azure/azure_backoff.go).
func errPrecondition(etag string) *armError {
	return errorf(http.StatusPreconditionFailed, "PreconditionFailed",
		"Operation failed because the provided etag %s did not match the resource's current etag.", etag)
}

// errBody is the answer to a body that is not a resource: ARM's
// InvalidRequestContent, before any resource provider sees it.
func errBody(err error) *armError {
	return errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: '%v'.", err)
}

// throttleRetryAfter is what a throttled caller is told to wait: the
// cloud's token bucket gives a call back at least this often at 1 QPS. ARM
// sends Retry-After on its 429s ("Request limits and throttling" in ARM's
// documentation), and the providers' clients stop calling until it ends
// (cloud-provider-azure@v1.30.4 pkg/retry/azure_error.go GetError).
const throttleRetryAfter = time.Second

// refusal turns the simulated cloud's refusal into ARM's: its knobs'
// denial, throttling, outage and injected errors, and a 404 into notFound
// when the action names one.
func refusal(err error, c caller, action string, notFound *armError) *armError {
	var se *api.StatusError
	if !errors.As(err, &se) {
		return asARM(err)
	}
	e := refusalOf(se, c, action, notFound)
	e.Message += " (" + se.Message + ")"
	return e
}

func refusalOf(se *api.StatusError, c caller, action string, notFound *armError) *armError {
	switch se.Code {
	case http.StatusForbidden:
		e := errorf(http.StatusForbidden, "AuthorizationFailed",
			"The client '%s' does not have authorization to perform action '%s' or the scope is invalid. If access was recently granted, please refresh your credentials.", c.Principal, action)
		e.Fault = "deny"
		return e
	case http.StatusTooManyRequests:
		// As velero-io/velero#9171 quotes ARM's answer.
		e := errorf(http.StatusTooManyRequests, "SubscriptionRequestsThrottled",
			"Number of requests for actor '%s' exceeded. Please try again after '%d' seconds after additional tokens are available. Refer to https://aka.ms/arm-throttling for additional information.", c.Principal, int(throttleRetryAfter/time.Second))
		e.RetryAfter, e.Fault = throttleRetryAfter, "throttle"
		return e
	case http.StatusServiceUnavailable:
		e := errorf(http.StatusServiceUnavailable, "ServiceUnavailable", "The service is temporarily unavailable. Please try again later.")
		e.Fault = "outage"
		return e
	case http.StatusNotFound:
		if notFound != nil {
			copied := *notFound
			return &copied
		}
	case http.StatusBadRequest:
		return errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request.")
	}
	e := errorf(http.StatusInternalServerError, "InternalServerError", "An error has occurred.")
	e.Fault = "error-rate"
	return e
}
