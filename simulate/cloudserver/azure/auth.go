package azure

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// armAudiences are the audiences ARM takes tokens for, as it names them
// when it refuses another (JetBrains/azure-tools-for-intellij#16 quotes
// the refusal; each is taken with and without its trailing slash).
var armAudiences = []string{"https://management.core.windows.net/", "https://management.azure.com/"}

// authenticate finds who a call is from by its bearer token, refusing
// (401) a call without one, with one this face did not issue, one for
// another audience, one expired, or one of a node whose VM is gone. ARM's
// codes as callers quote them: AuthenticationFailed
// (hashicorp/terraform-provider-azurerm#3612),
// AuthenticationFailedInvalidHeader (Azure/azure-sdk-for-python#4124),
// ExpiredAuthenticationToken (microsoft/vscode-azureappservice#2483),
// InvalidAuthenticationTokenAudience (JetBrains/azure-tools-for-intellij#16);
// a token it cannot validate is InvalidAuthenticationToken.
func (f *Face) authenticate(r *http.Request) (caller, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return caller{}, unauthenticated("AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || token == "" {
		return caller{}, unauthenticated("AuthenticationFailedInvalidHeader", "Authentication failed. The 'Authorization' header is provided in an invalid format.")
	}
	return f.holder(token)
}

// holder is who a token was issued to, if ARM takes it: this cloud's,
// for one of ARM's audiences, unexpired, of a VM that still exists.
func (f *Face) holder(token string) (caller, error) {
	c, ok := verify(f.opts.TokenKey, token)
	if !ok {
		return caller{}, unauthenticated("InvalidAuthenticationToken", "The access token is invalid.")
	}
	if !f.audience(c.Resource) {
		return caller{}, unauthenticated("InvalidAuthenticationTokenAudience",
			"The access token has been obtained for wrong audience or resource '%s'. It should exactly match with one of the allowed audiences '%s'.", c.Resource, strings.Join(f.allowed(), "','"))
	}
	now := f.opts.Now()
	if exp := time.Unix(c.Expires, 0); !now.Before(exp) {
		return caller{}, unauthenticated("ExpiredAuthenticationToken", "The access token expiry UTC time '%s' is earlier than current UTC time '%s'.", exp.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if c.Node != "" && f.opts.Terminated != nil && f.opts.Terminated(c.Node) {
		return caller{}, unauthenticated("InvalidAuthenticationToken", "The access token is invalid.")
	}
	return c.caller, nil
}

func unauthenticated(code, format string, args ...any) *armError {
	return errorf(http.StatusUnauthorized, code, format, args...)
}

// audiences are the audiences taken: ARM's own and the configured ones.
func (f *Face) audiences() []string { return append(slices.Clone(armAudiences), f.opts.Audiences...) }

// allowed are the audiences as ARM lists them: each with its trailing
// slash and without.
func (f *Face) allowed() []string {
	var out []string
	for _, a := range f.audiences() {
		out = append(out, a, strings.TrimSuffix(a, "/"))
	}
	return out
}

// audience: resource is one of them, a trailing slash aside.
func (f *Face) audience(resource string) bool {
	return slices.ContainsFunc(f.audiences(), func(a string) bool {
		return strings.TrimSuffix(a, "/") == strings.TrimSuffix(resource, "/")
	})
}
