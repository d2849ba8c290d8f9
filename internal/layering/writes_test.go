package layering_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rawWrite matches the standard library's calls that create or write a
// file or directory by path: each follows a link planted at the path or
// on the way to it.
var rawWrite = regexp.MustCompile(`\bos\.(WriteFile|Create|OpenFile|MkdirAll|Mkdir)\(`)

// rawWriters are the files allowed such calls, each for a reason:
// everything else writes through internal/privatefs, which walks a path
// without following links and refuses a directory others may write to.
var rawWriters = map[string]string{
	"internal/privatefs/privatefs.go":    "the writer itself (Move's copy of a directory it made)",
	"internal/boundedfile/":              "opens read-only",
	"internal/testenv/":                  "test helpers in the tests' own temporary directories",
	"timeline/writer.go":                 "O_NOFOLLOW under an output directory privatefs made or checked",
	"clusters/kindcluster/sysctl.go":     "/proc/sys, the host's recorded settings only",
	"clusters/host/sysctl.go":            "/proc/sys",
	"clusters/host/cgroups.go":           "mount points under /sys/fs/cgroup",
	"clusters/host/capfilter/":           "the runtime wrapper rewriting the container bundle runc was handed",
	"clusters/cni/":                      "the pod network's agent, inside a node",
	"clusters/nodeimage/rootfs.go":       "a root file system being built in the private cache, O_NOFOLLOW",
	"clusters/nodeimage/modules/":        "programs built into the node images, run inside nodes",
	"simulate/cloudprovider/":            "managers and agents run inside nodes",
	"simulate/cloudserver/amazon/drive/": "programs run inside nodes",
}

// Every file handover writes on the host goes through privatefs, unless
// rawWriters says why not.
func TestWritesGoThroughPrivatefs(t *testing.T) {
	root := filepath.Join("..", "..")
	err := walkGoFiles(root, func(path, rel string) error {
		if allowedWriter(rel) {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(raw), "\n") {
			if rawWrite.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d writes by path without privatefs: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func allowedWriter(rel string) bool {
	for prefix := range rawWriters {
		if rel == prefix || strings.HasSuffix(prefix, "/") && strings.HasPrefix(rel, prefix) {
			return true
		}
	}
	return false
}
