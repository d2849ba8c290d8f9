package migrate

import (
	"maps"
	"slices"
	"testing"
)

// TestMistakeGolden pins what each mistake changes: the plan, the lint and
// the files an N+1 control plane joins with (which the plan does not show
// in full).
func TestMistakeGolden(t *testing.T) {
	for _, m := range MistakeNames() {
		t.Run(m, func(t *testing.T) {
			s := mistakeSpec(m)
			got := planAndLint(t, s)
			got.WriteString("\n## files an N+1 control plane joins with\n")
			files := s.ccmFiles("KUBECONFIG")
			for _, path := range slices.Sorted(maps.Keys(files)) {
				got.WriteString("\n### " + path + "\n" + files[path])
			}
			matchGolden(t, "mistake-"+m, got)
		})
	}
}
