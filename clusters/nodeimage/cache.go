package nodeimage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/internal/privatefs"
)

// DefaultCacheDir is where built artifacts and clusters' state live between
// runs: $HANDOVER_CACHE, else the user's cache directory ($XDG_CACHE_HOME
// or $HOME/.cache), else the home directory the password database gives
// the user, else (root with no home) /var/cache/handover. Never a shared
// directory such as /tmp, where whoever made the directory first would
// steer root's writes; CheckCacheDir refuses one that is not private.
func DefaultCacheDir() string {
	if d := os.Getenv("HANDOVER_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "handover")
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) && u.HomeDir != "/" {
		return filepath.Join(u.HomeDir, ".cache", "handover")
	}
	return "/var/cache/handover"
}

// CheckCacheDir makes the cache directory if it is missing and refuses one
// that someone else could steer: a link anywhere on its path, or a
// directory that is not root's or the user's (or, under sudo, the invoking
// user's), or that others may write to. It is made 0755, as the images'
// build directories in it are: a CI runner's user saves it between runs
// (the clusters' secrets are in 0700 directories below it).
func CheckCacheDir() error {
	dir := DefaultCacheDir()
	if err := privatefs.MkdirAllMode(dir, 0o755); err != nil {
		return fmt.Errorf("cache directory %s: %w (set HANDOVER_CACHE to a private directory)", dir, err)
	}
	return nil
}

// Key hashes the parts that decide an artifact's content.
type Key struct{ h []string }

// Add appends labelled inputs.
func (k *Key) Add(label string, values ...string) *Key {
	k.h = append(k.h, label)
	k.h = append(k.h, values...)
	return k
}

// AddFiles appends the contents of files.
func (k *Key) AddFiles(paths ...string) error {
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted)
	for _, p := range sorted {
		sum, err := fileSum(p)
		if err != nil {
			return err
		}
		k.Add(filepath.Base(p), sum)
	}
	return nil
}

// String is a short hex digest of everything added.
func (k *Key) String() string {
	h := sha256.New()
	for _, s := range k.h {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// fileSum is a file's SHA-256. A large built artifact's sum (the binaries,
// hundreds of megabytes in all, hashed again at every rehearsal to find the
// cached image) is kept beside it with the size and modification time it
// was taken at, and reused while they hold. Only files directly in a
// finished cache directory get one: never a host's or a root file
// system's files.
func fileSum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	stamp := fmt.Sprintf("%d %d ", st.Size(), st.ModTime().UnixNano())
	side := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".sha256")
	_, doneErr := os.Stat(filepath.Join(filepath.Dir(path), ".done"))
	keep := st.Size() >= sidecarMin && doneErr == nil
	if keep {
		if b, err := os.ReadFile(side); err == nil && strings.HasPrefix(string(b), stamp) {
			return strings.TrimPrefix(string(b), stamp), nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if keep {
		_ = privatefs.WriteFileMode(side, []byte(stamp+sum), 0o644) // best effort: a read-only tree hashes each time
	}
	return sum, nil
}

// sidecarMin: files this large keep their sum beside them; source files
// are far smaller and never get one.
const sidecarMin = 1 << 20

// cachedDir returns dir/name/key, building it with build into a temporary
// directory first if absent; a half-built artifact is never seen as done.
// A hit marks the artifact used; a build removes the same artifact's
// other builds unused for staleAfter (pruneStale).
func cachedDir(root, name, key string, build func(dir string) error) (string, bool, error) {
	final := filepath.Join(root, name, key)
	done := filepath.Join(final, ".done")
	if _, err := os.Stat(done); err == nil {
		now := time.Now()
		_ = os.Chtimes(done, now, now) // used: kept by pruneStale
		return final, true, nil
	}
	tmp := final + ".partial"
	_ = os.RemoveAll(tmp)
	if err := privatefs.MkdirAllMode(tmp, 0o755); err != nil {
		return "", false, err
	}
	if err := build(tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return "", false, err
	}
	if err := privatefs.WriteFileMode(filepath.Join(tmp, ".done"), nil, 0o644); err != nil {
		return "", false, err
	}
	_ = os.RemoveAll(final)
	if err := os.Rename(tmp, final); err != nil {
		return "", false, err
	}
	pruneStale(filepath.Join(root, name), key, time.Now())
	return final, false, nil
}

// staleAfter: an artifact's earlier build unused this long is removed when
// a new one is made. Every source change makes a new build of each
// Kubernetes version's binaries (about 600 MB each): kept, they filled a
// shared disk within days.
const staleAfter = 24 * time.Hour

// pruneStale removes, in dir, the other builds of key's artifact (the same
// name before its last "-", another key after it) whose last use is older
// than staleAfter; a build in progress (".partial") and a key without a
// name part are left. Best effort: what cannot be removed stays.
func pruneStale(dir, key string, now time.Time) {
	i := strings.LastIndex(key, "-")
	if i <= 0 {
		return
	}
	prefix := key[:i+1]
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if n == key || !strings.HasPrefix(n, prefix) || strings.Contains(n[len(prefix):], "-") || strings.HasSuffix(n, ".partial") {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, n, ".done"))
		if err == nil && now.Sub(fi.ModTime()) > staleAfter {
			_ = os.RemoveAll(filepath.Join(dir, n))
		}
	}
}

// AddImageFiles appends image files (paths, modes, link targets, contents)
// in path order, so the key does not depend on how the list was built.
func (k *Key) AddImageFiles(files []file) error {
	sorted := append([]file(nil), files...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, f := range sorted {
		k.Add(f.Path, fmt.Sprint(f.Mode, f.Link, f.Dir), string(f.Data))
		if f.Src == "" {
			continue
		}
		if err := k.AddFiles(f.Src); err != nil {
			return err
		}
	}
	return nil
}
