package nodeimage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestKeyIsOrderedAndLengthPrefixed(t *testing.T) {
	a := (&Key{}).Add("x", "ab", "c").String()
	b := (&Key{}).Add("x", "a", "bc").String()
	if a == b {
		t.Fatal("keys of different inputs collide")
	}
	if a != (&Key{}).Add("x", "ab", "c").String() {
		t.Fatal("key not deterministic")
	}
}

func TestCachedDirBuildsOnceAndDropsFailures(t *testing.T) {
	root := t.TempDir()
	calls := 0
	build := func(dir string) error { calls++; return os.WriteFile(filepath.Join(dir, "out"), []byte("x"), 0o644) }
	dir, hit, err := cachedDir(root, "bin", "k1", build)
	if err != nil || hit {
		t.Fatalf("first build: hit=%v err=%v", hit, err)
	}
	if _, hit, _ := cachedDir(root, "bin", "k1", build); !hit || calls != 1 {
		t.Fatalf("second call rebuilt (calls=%d)", calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	_, _, err = cachedDir(root, "bin", "k2", func(string) error { return errors.New("boom") })
	if err == nil {
		t.Fatal("want the build error")
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "k2")); !os.IsNotExist(err) {
		t.Fatal("a failed build left a cache entry")
	}
}

func TestImageFilesKeyIgnoresOrder(t *testing.T) {
	a := []file{{Path: "/a", Data: []byte("1")}, {Path: "/b", Link: "a"}}
	b := []file{a[1], a[0]}
	ka, kb := &Key{}, &Key{}
	if err := ka.AddImageFiles(a); err != nil {
		t.Fatal(err)
	}
	if err := kb.AddImageFiles(b); err != nil {
		t.Fatal(err)
	}
	if ka.String() != kb.String() {
		t.Fatal("file order changed the key")
	}
	kc := &Key{}
	_ = kc.AddImageFiles([]file{{Path: "/a", Data: []byte("2")}, {Path: "/b", Link: "a"}})
	if kc.String() == ka.String() {
		t.Fatal("content change did not change the key")
	}
}

// A new build removes the same artifact's other builds unused for a day,
// and keeps those used since, other artifacts' and one being built.
func TestANewBuildPrunesStaleOnes(t *testing.T) {
	root := t.TempDir()
	build := func(dir string) error { return nil }
	old := time.Now().Add(-2 * staleAfter)
	for _, key := range []string{"kubernetes-v1.30.14-aaaa", "kubernetes-v1.30.14-bbbb", "kubernetes-v1.31.4-cccc", "cloud-provider-aws-v1.27.2-credential-provider-dddd"} {
		if _, _, err := cachedDir(root, "bin", key, build); err != nil {
			t.Fatal(err)
		}
		done := filepath.Join(root, "bin", key, ".done")
		if err := os.Chtimes(done, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "bin", "kubernetes-v1.30.14-eeee.partial"), 0o755); err != nil {
		t.Fatal(err)
	}
	// bbbb used again since: kept.
	if _, hit, _ := cachedDir(root, "bin", "kubernetes-v1.30.14-bbbb", build); !hit {
		t.Fatal("a cached build missed")
	}
	if _, _, err := cachedDir(root, "bin", "kubernetes-v1.30.14-ffff", build); err != nil {
		t.Fatal(err)
	}
	for key, kept := range map[string]bool{"kubernetes-v1.30.14-aaaa": false, "kubernetes-v1.30.14-bbbb": true, "kubernetes-v1.31.4-cccc": true,
		"cloud-provider-aws-v1.27.2-credential-provider-dddd": true, "kubernetes-v1.30.14-eeee.partial": true, "kubernetes-v1.30.14-ffff": true} {
		if _, err := os.Stat(filepath.Join(root, "bin", key)); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", key, err == nil, kept)
		}
	}
}
