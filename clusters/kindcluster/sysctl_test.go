package kindcluster

import (
	"maps"
	"testing"
)

// Only the recorded settings, with integer values, are ever written back.
func TestRestorableSysctls(t *testing.T) {
	got := restorable(map[string]string{
		"kernel/panic":           "10",
		"vm/overcommit_memory":   "1 ; x",
		"../../../etc/cron.d/x":  "1",
		"kernel/core_pattern":    "1",
		"kernel/panic_on_oops":   "1",
		"kernel/../kernel/panic": "5",
	})
	want := map[string]string{"kernel/panic": "10", "kernel/panic_on_oops": "1"}
	if !maps.Equal(got, want) {
		t.Fatalf("restorable: %v, want %v", got, want)
	}
}
