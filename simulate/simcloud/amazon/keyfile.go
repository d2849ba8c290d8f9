package amazon

import (
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
)

// KeyFile serves the keys of the keys' file: read when opened, and read
// again when a call names a key it does not hold and the file was
// replaced since (a node's kubelet key, issued when the node joins after
// the cloud started). A miss costs one stat; the file is read only when
// it changed, so unknown keys sent in a loop do not make the cloud
// re-read it.
type KeyFile struct {
	path  string
	mu    sync.Mutex
	keys  awsapi.Keys
	stamp fileStamp
}

// fileStamp tells a replaced file from the one read: WriteKeys renames a
// new file into place.
type fileStamp struct {
	ino, size int64
	mtime     time.Time
}

// OpenKeyFile reads the keys at path.
func OpenKeyFile(path string) (*KeyFile, error) {
	k := &KeyFile{path: path}
	if err := k.reload(); err != nil {
		return nil, err
	}
	return k, nil
}

// Key is the key with id, reading the file again if it changed.
func (k *KeyFile) Key(id string) (awsapi.Key, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.keys[id]; ok {
		return key, true
	}
	if stampOf(k.path) == k.stamp {
		return awsapi.Key{}, false
	}
	// A file that no longer reads keeps the keys last read.
	_ = k.reload()
	key, ok := k.keys[id]
	return key, ok
}

// reload reads the file; callers hold k.mu (or own k alone).
func (k *KeyFile) reload() error {
	stamp := stampOf(k.path)
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
