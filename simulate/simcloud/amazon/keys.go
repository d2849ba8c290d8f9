package amazon

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

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

// maxKeyFile bounds the keys' file: a key a component and one a node's
// kubelet, about 200 bytes each.
const maxKeyFile = 64 << 10

// WriteKeys writes the issued keys to path.
func WriteKeys(path string, keys []awsapi.Key) error {
	raw, err := json.MarshalIndent(keyFile{Keys: keys}, "", "  ")
	if err != nil {
		return err
	}
	return privatefs.WriteFile(path, raw)
}

// AddKey adds a key to the keys' file at path (a node's, issued as it
// joins): the file is replaced whole, so a cloud serving it (KeyFile)
// reads either the old keys or the new ones. Callers serialise their adds.
func AddKey(path string, k awsapi.Key) error {
	keys, err := ReadKeys(path)
	if err != nil {
		return err
	}
	if _, dup := keys[k.ID]; dup {
		return fmt.Errorf("the AWS keys %s: %s issued already", path, k.ID)
	}
	all := make([]awsapi.Key, 0, len(keys)+1)
	for _, id := range slices.Sorted(maps.Keys(keys)) {
		all = append(all, keys[id])
	}
	return WriteKeys(path, append(all, k))
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
