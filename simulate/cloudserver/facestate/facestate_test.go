package facestate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type data struct {
	Names map[string]int `json:"names"`
}

func fillNames(d *data) {
	if d.Names == nil {
		d.Names = map[string]int{}
	}
}

// A change is saved and read back by the next store at the path; a failed
// change saves nothing; a corrupt file is refused by name.
func TestStoreSavesEachChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s, err := Open(path, "the test state", fillNames)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Change(func(d *data) error { d.Names["a"] = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("no")
	if err := s.Change(func(d *data) error { d.Names["b"] = 2; return refused }); !errors.Is(err, refused) {
		t.Fatalf("a failed change: %v", err)
	}
	again, err := Open(path, "the test state", fillNames)
	if err != nil {
		t.Fatal(err)
	}
	again.Read(func(d *data) {
		if d.Names["a"] != 1 || d.Names["b"] != 0 {
			t.Errorf("read back %v", d.Names)
		}
	})
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, "the test state", fillNames); err == nil || !strings.Contains(err.Error(), "the test state "+path+" is corrupt") {
		t.Errorf("a corrupt file: %v", err)
	}
	mem, err := Open("", "the test state", fillNames)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Change(func(d *data) error { d.Names["c"] = 3; return nil }); err != nil {
		t.Fatal(err)
	}
}
