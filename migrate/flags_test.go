package migrate

import (
	"slices"
	"testing"
)

// A user's manifest may spell a flag with _; the manager reads it as -.
func TestRemoveFlagEverySpelling(t *testing.T) {
	got := removeFlag([]string{"/ccm", "--secure_port=1", "--secure-port", "--v=2"}, "secure-port")
	if !slices.Equal(got, []string{"/ccm", "--v=2"}) {
		t.Errorf("%v", got)
	}
}
