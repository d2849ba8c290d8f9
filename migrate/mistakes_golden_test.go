package migrate

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMistakeGolden pins what each mistake changes: the plan, the lint and
// the files an N+1 control plane joins with (which the plan does not show
// in full).
func TestMistakeGolden(t *testing.T) {
	for _, m := range MistakeNames() {
		t.Run(m, func(t *testing.T) {
			s := DefaultSpec(TaskDoc)
			s.Mistake = m
			p, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := WritePlan(&got, p, s); err != nil {
				t.Fatal(err)
			}
			got.WriteString("\n## preflight lint\n\n" + s.Lint().String())
			got.WriteString("\n## files an N+1 control plane joins with\n")
			files := s.ccmFiles("KUBECONFIG")
			for _, path := range slices.Sorted(maps.Keys(files)) {
				got.WriteString("\n### " + path + "\n" + files[path])
			}
			path := filepath.Join("testdata", "plan", "mistake-"+m+".golden")
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./migrate -run Golden -update)", err)
			}
			if got.String() != string(want) {
				t.Errorf("mistake %s differs from %s:\n%s", m, path, firstDiff(string(want), got.String()))
			}
		})
	}
}
