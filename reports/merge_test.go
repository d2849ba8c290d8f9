package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTable(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "verdicts.md")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const head = "| pair | verdict |\n|---|---|\n"

func TestMergeTablesJoinsRowsOnce(t *testing.T) {
	a := writeTable(t, head+"| v1.30 → v1.31 | green |\n| v1.26 → v1.27 | red |\n")
	b := writeTable(t, head+"| v1.29 → v1.30 | green |\n| v1.26 → v1.27 | red |\n")
	got, err := MergeTables(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := head + "| v1.26 → v1.27 | red |\n| v1.29 → v1.30 | green |\n| v1.30 → v1.31 | green |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMergeTablesRefusesWhatIsNotTheSameTable(t *testing.T) {
	good := writeTable(t, head+"| a | b |\n")
	for name, body := range map[string]string{
		"another header": "| x | y |\n|---|---|\n| a | b |\n",
		"not a table":    "# verdicts\n\nsome text\n",
		"text after":     head + "| a | b |\nnotes\n",
	} {
		if _, err := MergeTables(good, writeTable(t, body)); err == nil {
			t.Errorf("%s: merged", name)
		} else if !strings.Contains(err.Error(), "verdicts.md") {
			t.Errorf("%s: the error does not name the file: %v", name, err)
		}
	}
	if _, err := MergeTables(); err == nil {
		t.Error("nothing merged without an error")
	}
}
