// Package ecrtoken is the password an ECR authorization token carries for
// user AWS in the simulated cloud: who it was issued to and until when,
// signed with a key the cloud and its registry share, so the registry
// checks it without asking the cloud. Real ECR's passwords are opaque;
// what matters to a kubelet is only that the registry takes the token
// GetAuthorizationToken gave and refuses anything else.
package ecrtoken

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/privatefs"
)

// User is the user name every ECR token is for.
const User = "AWS"

// keySize is the signing key's length: HMAC-SHA256's block of entropy.
const keySize = 32

// NewKey makes a random signing key.
func NewKey() ([]byte, error) {
	k := make([]byte, keySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("making the registry's token key: %w", err)
	}
	return k, nil
}

// WriteKey writes a key to path, readable by its owner only.
func WriteKey(path string, key []byte) error {
	return privatefs.WriteFile(path, []byte(base64.StdEncoding.EncodeToString(key)+"\n"))
}

// ReadKey reads a key WriteKey wrote.
func ReadKey(path string) ([]byte, error) {
	raw, err := boundedfile.Read(path, 1<<10)
	if err != nil {
		return nil, fmt.Errorf("the registry's token key: %w", err)
	}
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(k) != keySize {
		return nil, fmt.Errorf("the registry's token key %s: want %d bytes in base64", path, keySize)
	}
	return k, nil
}

// Password is the password of a token issued to principal until expires.
func Password(key []byte, principal string, expires time.Time) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(expires.Unix()))
	claim := base64.RawURLEncoding.EncodeToString(b[:]) + "." + principal
	return claim + "." + base64.RawURLEncoding.EncodeToString(mac(key, claim))
}

// Verify says whom a password was issued to, if key signed it and it has
// not expired at now.
func Verify(key []byte, password string, now time.Time) (principal string, ok bool) {
	i := strings.LastIndexByte(password, '.')
	if i < 0 {
		return "", false
	}
	claim, sig := password[:i], password[i+1:]
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(key, claim)) {
		return "", false
	}
	exp, who, found := strings.Cut(claim, ".")
	raw, err := base64.RawURLEncoding.DecodeString(exp)
	if !found || err != nil || len(raw) != 8 || !now.Before(time.Unix(int64(binary.BigEndian.Uint64(raw)), 0)) {
		return "", false
	}
	return who, true
}

func mac(key []byte, claim string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(claim))
	return m.Sum(nil)
}
