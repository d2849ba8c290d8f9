package nodeaccess

import (
	"os"
	"testing"
)

// The tests stand this process's own root in for a node's.
func TestMain(m *testing.M) {
	sharesHostRoot = true
	os.Exit(m.Run())
}
