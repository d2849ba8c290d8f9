// Package docs_test holds the documentation's links: every relative link in
// README.md and docs/**/*.md names a file that exists and, with a #fragment,
// a heading of that file; and README.md stays short.
package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines is the README's budget: what a newcomer needs, the rest in docs/.
const maxReadmeLines = 300

var (
	// linkRE matches [text](target); the text may wrap across lines.
	linkRE = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	// headingRE matches an ATX heading.
	headingRE = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
)

// markdownFiles returns README.md and every .md file under docs/, relative to
// the repository root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// prose returns a file's lines outside fenced code blocks; code lines become
// empty so that line numbers stay right.
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// slug is GitHub's anchor for a heading: lower case, spaces to '-',
// punctuation other than '-' and '_' dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the heading anchors of a markdown file, numbering repeats
// as GitHub does (x, x-1, x-2, …).
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(text) {
		m := headingRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			set[s+"-"+strconv.Itoa(n)] = true
		} else {
			set[s] = true
		}
		seen[s]++
	}
	return set
}

func TestLinks(t *testing.T) {
	root := ".."
	cache := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := cache[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		cache[path] = anchors(string(b))
		return cache[path], nil
	}

	for _, file := range markdownFiles(t, root) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, file)
		text := strings.Join(prose(string(b)), "\n")
		for _, m := range linkRE.FindAllStringSubmatchIndex(text, -1) {
			target := text[m[2]:m[3]]
			line := 1 + strings.Count(text[:m[0]], "\n")
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", name, line, target, path)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			a, err := anchorsOf(dest)
			if err != nil {
				t.Errorf("%s:%d: link %q: %v", name, line, target, err)
				continue
			}
			if !a[frag] {
				t.Errorf("%s:%d: link %q: no heading with anchor #%s in %s", name, line, target, frag, filepath.ToSlash(mustRel(root, dest)))
			}
		}
	}
}

func mustRel(base, path string) string {
	r, err := filepath.Rel(base, path)
	if err != nil {
		return path
	}
	return r
}

func TestReadmeShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")); n >= maxReadmeLines {
		t.Errorf("README.md has %d lines, want fewer than %d: move detail into a page under docs/ and link it", n, maxReadmeLines)
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Scale: hundreds of simulated nodes":         "scale-hundreds-of-simulated-nodes",
		"Measured on this machine (2 cores, 24 GiB)": "measured-on-this-machine-2-cores-24-gib",
		"Rehearsals: load, faults, suites":           "rehearsals-load-faults-suites",
		"snake_case and-dash":                        "snake_case-and-dash",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}
