package amazon

import (
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// KeyFile serves the keys of the keys' file as it is now: a key issued
// as a node joins, after the cloud started, is served from the next call
// on, and a key revoked as its node leaves refused from then on. Each call
// costs one stat; the file is read again only when it was replaced (or
// changed) since it was last read.
type KeyFile struct {
	path  string
	mu    sync.Mutex
	keys  awsapi.Keys
	stamp fileStamp
}

// fileStamp tells a replaced file from the one read: EditKeys renames a
// new file into place.
type fileStamp struct {
	ino, size int64
	mtime     time.Time
}

// OpenKeyFile reads the keys at path.
func OpenKeyFile(path string) (*KeyFile, error) {
	k := &KeyFile{path: path}
	if err := k.reload(stampOf(path)); err != nil {
		return nil, err
	}
	return k, nil
}

// Key is the key with id, reading the file again if it changed.
func (k *KeyFile) Key(id string) (awsapi.Key, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if stamp := stampOf(k.path); stamp != k.stamp {
		// A file that no longer reads keeps the keys last read, and is
		// read again only once it changes again.
		if k.reload(stamp) != nil {
			k.stamp = stamp
		}
	}
	key, ok := k.keys[id]
	return key, ok
}

// reload reads the file, stat'ed as stamp before the read; callers hold
// k.mu (or own k alone).
func (k *KeyFile) reload(stamp fileStamp) error {
	keys, err := ReadKeys(k.path)
	if err != nil {
		return err
	}
	k.keys, k.stamp = keys, stamp
	return nil
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = int64(st.Ino)
	}
	return s
}
