package amazon

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
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
// joins), in place of any key its node held (a node's name used again).
func AddKey(path string, k awsapi.Key) error {
	return EditKeys(path, func(keys awsapi.Keys) error {
		if _, dup := keys[k.ID]; dup {
			return fmt.Errorf("the AWS keys %s: %s issued already", path, k.ID)
		}
		dropNodeKeys(keys, k.Node)
		keys[k.ID] = k
		return nil
	})
}

// RevokeNodeKeys removes every key of node's from the keys' file at path
// (a node removed): a cloud serving the file (KeyFile) refuses them from
// its next call on. It says how many there were.
func RevokeNodeKeys(path, node string) (int, error) {
	var n int
	err := EditKeys(path, func(keys awsapi.Keys) error {
		n = dropNodeKeys(keys, node)
		return nil
	})
	return n, err
}

// dropNodeKeys removes node's keys from keys, saying how many there were.
func dropNodeKeys(keys awsapi.Keys, node string) int {
	n := 0
	for id, k := range keys {
		if node != "" && k.Node == node {
			delete(keys, id)
			n++
		}
	}
	return n
}

// EditKeys changes the keys' file at path through edit, which changes the
// keys it is given in place. The file is replaced whole, so a cloud
// serving it (KeyFile) reads either the old keys or the new ones; edits
// hold a lock beside the file, so two handover processes (a rehearsal's
// joins and a `cluster add-node`) never lose each other's keys.
func EditKeys(path string, edit func(awsapi.Keys) error) error {
	lock, err := privatefs.OpenAppend(path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the AWS keys: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("locking the AWS keys %s: %w", path, err)
	}
	keys, err := ReadKeys(path)
	if err != nil {
		return err
	}
	if err := edit(keys); err != nil {
		return err
	}
	all := make([]awsapi.Key, 0, len(keys))
	for _, id := range slices.Sorted(maps.Keys(keys)) {
		all = append(all, keys[id])
	}
	return WriteKeys(path, all)
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
