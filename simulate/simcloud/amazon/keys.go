package amazon

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
)

// NewKey issues an access key to a component: an ID in AWS's form (AKIA
// and 16 base-32 characters) and a 40-character secret, both random.
func NewKey(principal string) (awsapi.Key, error) {
	id, secret := make([]byte, 10), make([]byte, 30)
	if _, err := rand.Read(id); err != nil {
		return awsapi.Key{}, fmt.Errorf("issuing a key: %w", err)
	}
	if _, err := rand.Read(secret); err != nil {
		return awsapi.Key{}, fmt.Errorf("issuing a key: %w", err)
	}
	return awsapi.Key{ID: "AKIA" + base32.StdEncoding.EncodeToString(id), Secret: base64.StdEncoding.EncodeToString(secret), Principal: principal}, nil
}

// keyFile is the keys' file: readable by root only, as credentials.
type keyFile struct {
	Keys []awsapi.Key `json:"keys"`
}

// maxKeyFile bounds the keys' file: a key a component, a few components.
const maxKeyFile = 64 << 10

// WriteKeys writes the issued keys to path.
func WriteKeys(path string, keys []awsapi.Key) error {
	raw, err := json.MarshalIndent(keyFile{Keys: keys}, "", "  ")
	if err != nil {
		return err
	}
	return privatefs.WriteFile(path, raw)
}

// ReadKeys reads the keys WriteKeys wrote, refusing a file that names a
// key twice or a key without its secret or component.
func ReadKeys(path string) (awsapi.Keys, error) {
	raw, err := boundedfile.Read(path, maxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("the AWS keys: %w", err)
	}
	var f keyFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("the AWS keys %s: %w", path, err)
	}
	out := awsapi.Keys{}
	for _, k := range f.Keys {
		if k.ID == "" || k.Secret == "" || k.Principal == "" {
			return nil, fmt.Errorf("the AWS keys %s: every key needs its id, secret and principal", path)
		}
		if _, dup := out[k.ID]; dup {
			return nil, fmt.Errorf("the AWS keys %s: %s twice", path, k.ID)
		}
		out[k.ID] = k
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the AWS keys %s: no key", path)
	}
	return out, nil
}
