package awsapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// Signature Version 4, checked as AWS checks it ("Create a signed AWS API
// request" in the IAM user guide): the server recomputes the signature
// from the request and the secret of the access key it names.

const (
	sigAlgorithm = "AWS4-HMAC-SHA256"
	amzDate      = "20060102T150405Z"
	// maxSkew: AWS refuses a request dated more than 15 minutes from its
	// clock (RequestExpired).
	maxSkew = 15 * time.Minute
)

// authorization is a parsed Authorization header.
type authorization struct {
	keyID, date, region, service string
	signedHeaders                []string
	signature                    string
}

func parseAuthorization(h string) (authorization, *Error) {
	var a authorization
	rest, ok := strings.CutPrefix(h, sigAlgorithm+" ")
	if !ok {
		return a, errIncompleteSignature("Authorization header requires %s.", sigAlgorithm)
	}
	parts := map[string]string{}
	for _, p := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return a, errIncompleteSignature("Authorization header part %q is not key=value.", p)
		}
		parts[k] = v
	}
	scope := strings.Split(parts["Credential"], "/")
	if len(scope) != 5 || scope[4] != "aws4_request" || parts["SignedHeaders"] == "" || parts["Signature"] == "" {
		return a, errIncompleteSignature("Authorization header requires Credential (KEY/DATE/REGION/SERVICE/aws4_request), SignedHeaders and Signature.")
	}
	a.keyID, a.date, a.region, a.service = scope[0], scope[1], scope[2], scope[3]
	a.signedHeaders = strings.Split(parts["SignedHeaders"], ";")
	a.signature = parts["Signature"]
	return a, nil
}

// verify checks r's signature for service in region against keys at now;
// body is the request's payload. It returns the key that signed it.
func verify(r *http.Request, body []byte, keys KeyStore, service, region string, now time.Time) (Key, *Error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return Key{}, errMissingToken()
	}
	a, err := parseAuthorization(h)
	if err != nil {
		return Key{}, err
	}
	key, ok := keys.Key(a.keyID)
	if !ok {
		return Key{}, errUnknownKey()
	}
	if err := checkScope(r, a, service, region, now); err != nil {
		return Key{}, err
	}
	payload, err := payloadHash(r, body)
	if err != nil {
		return Key{}, err
	}
	want := signature(key.Secret, a, stringToSign(r.Header.Get("X-Amz-Date"), a, canonicalRequest(r, a.signedHeaders, payload)))
	if subtle.ConstantTimeCompare([]byte(want), []byte(a.signature)) != 1 {
		return Key{}, errSignature()
	}
	return key, nil
}

// checkScope: the request is dated, within the clock skew, and its
// credential scope names that date, this region and this service.
func checkScope(r *http.Request, a authorization, service, region string, now time.Time) *Error {
	when, err := time.Parse(amzDate, r.Header.Get("X-Amz-Date"))
	if err != nil {
		return errIncompleteSignature("The request must carry X-Amz-Date (%s).", amzDate)
	}
	if d := now.Sub(when); d > maxSkew || d < -maxSkew {
		return errExpired("Request has expired: signed at %s, %s from this cloud's clock.", when.Format(time.RFC3339), d.Round(time.Second))
	}
	if a.date != when.Format("20060102") {
		return errSignature()
	}
	if a.region != region {
		return errIncompleteSignature("Credential should be scoped to a valid region, not '%s' (this cloud is %s).", a.region, region)
	}
	if a.service != service {
		return errIncompleteSignature("Credential should be scoped to correct service: '%s', not '%s'.", service, a.service)
	}
	if !slices.Contains(a.signedHeaders, "host") {
		return errIncompleteSignature("'Host' must be a signed header.")
	}
	return nil
}

// payloadHash is the SHA-256 of the body as received: the signature
// covers it, whatever a caller claims. aws-sdk-go v1 (signer/v4's
// buildBodyDigest) and v2 (X-Amz-Content-Sha256 added for S3 only, by
// S3ContentSHA256Header) send no X-Amz-Content-Sha256 to EC2, ELB or ECR;
// a header that does come must name that same hash. UNSIGNED-PAYLOAD and
// the STREAMING-* values are S3's ("Signature Calculations for the
// Authorization Header" in the S3 API reference), refused here as a
// mismatch.
func payloadHash(r *http.Request, body []byte) (string, *Error) {
	sum := hexSHA256(body)
	claimed := r.Header.Values("X-Amz-Content-Sha256")
	if len(claimed) == 0 {
		return sum, nil
	}
	if len(claimed) > 1 || subtle.ConstantTimeCompare([]byte(claimed[0]), []byte(sum)) != 1 {
		return "", errPayloadHash()
	}
	return sum, nil
}

func canonicalRequest(r *http.Request, signed []string, payload string) string {
	headers := make([]string, len(signed))
	for i, name := range signed {
		headers[i] = name + ":" + headerValue(r, name) + "\n"
	}
	return strings.Join([]string{r.Method, canonicalURI(r.URL), canonicalQuery(r.URL.Query()),
		strings.Join(headers, ""), strings.Join(signed, ";"), payload}, "\n")
}

// headerValue: the header's values joined by commas, each trimmed and its
// inner runs of spaces made one.
func headerValue(r *http.Request, name string) string {
	if name == "host" {
		return r.Host
	}
	vals := r.Header.Values(name)
	for i, v := range vals {
		vals[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(vals, ",")
}

// canonicalURI: the path as sent, URI-encoded once more (every service but
// S3 double-encodes).
func canonicalURI(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		return "/"
	}
	return escape(p, false)
}

func canonicalQuery(q url.Values) string {
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, escape(k, true)+"="+escape(v, true))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// escape percent-encodes all but the unreserved characters (and '/' unless
// slash).
func escape(s string, slash bool) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if unreserved(c) || (c == '/' && !slash) {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0
}

func stringToSign(date string, a authorization, canonical string) string {
	scope := strings.Join([]string{a.date, a.region, a.service, "aws4_request"}, "/")
	return strings.Join([]string{sigAlgorithm, date, scope, hexSHA256([]byte(canonical))}, "\n")
}

func signature(secret string, a authorization, toSign string) string {
	key := hmacSHA256([]byte("AWS4"+secret), a.date)
	for _, part := range []string{a.region, a.service, "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	return hex.EncodeToString(hmacSHA256(key, toSign))
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
