package nodeimage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
