package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// MergeTables joins Markdown tables that share one header — the version
// matrix's verdict tables, one per shard — into one: the header once, then
// every row of every table, each row once, sorted. A file whose header
// differs, or that holds anything but the table, is refused by name.
func MergeTables(paths ...string) (string, error) {
	if len(paths) == 0 {
		return "", fmt.Errorf("no table to merge")
	}
	var header []string
	var rows []string
	for _, p := range paths {
		b, err := boundedfile.Read(p, boundedfile.ManifestLimit)
		if err != nil {
			return "", err
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		if len(lines) < 2 || !isRow(lines[0]) || !strings.HasPrefix(lines[1], "|---") {
			return "", fmt.Errorf("%s: not a Markdown table (a header row, then |---|)", p)
		}
		if header == nil {
			header = lines[:2]
		} else if !slices.Equal(header, lines[:2]) {
			return "", fmt.Errorf("%s: its header %q differs from %s's %q: tables of different kinds do not merge", p, lines[0], paths[0], header[0])
		}
		for i, l := range lines[2:] {
			if !isRow(l) {
				return "", fmt.Errorf("%s:%d: not a table row: %q", p, i+3, l)
			}
			rows = append(rows, l)
		}
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	return strings.Join(append(header, rows...), "\n") + "\n", nil
}

func isRow(l string) bool { return strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|") }
