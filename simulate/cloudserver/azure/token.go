package azure

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// caller is who an ARM call is made as: the component its token was
// issued to, and the node it was issued on.
type caller struct {
	Principal string `json:"p"`
	Node      string `json:"n"`
}

// claims are what a token says, signed with the face's key so that a
// token outlives the process that issued it (the providers keep a token
// until it nears its expiry).
type claims struct {
	caller
	Resource string `json:"r"`
	Expires  int64  `json:"e"`
}

// tokenLifetime is a managed identity token's: a day, as the metadata
// service hands them out. adal asks for a new one 5 minutes before a
// token expires (go-autorest adal@v0.9.23 token.go defaultRefresh).
const tokenLifetime = 24 * time.Hour

// NewTokenKey makes a random key to sign tokens with.
func NewTokenKey() ([]byte, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("making the ARM token key: %w", err)
	}
	return k, nil
}

// sign makes the opaque token of c: the clients never look inside one
// (adal and azidentity keep access_token as a string).
func sign(key []byte, c claims) string {
	raw, _ := json.Marshal(c)
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + base64.RawURLEncoding.EncodeToString(tokenMAC(key, body))
}

// verify says what a token claims if key signed it; expiry is the
// caller's to check.
func verify(key []byte, token string) (claims, bool) {
	body, sig, ok := strings.Cut(token, ".")
	if !ok {
		return claims{}, false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, tokenMAC(key, body)) {
		return claims{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var c claims
	if err != nil || json.Unmarshal(raw, &c) != nil {
		return claims{}, false
	}
	return c, true
}

func tokenMAC(key []byte, body string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return m.Sum(nil)
}
