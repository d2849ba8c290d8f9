package suites_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/gomega"
)

// table is a Markdown table a suite writes a row of per spec, under the
// reports directory; a run starts it afresh.
type table struct {
	path, header string
	begun        bool
}

func (t *table) append(row string) {
	path := filepath.Join(reportsDir(filepath.Dir(t.path)), filepath.Base(t.path))
	Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
	flags := os.O_APPEND | os.O_WRONLY
	if !t.begun {
		flags = os.O_CREATE | os.O_TRUNC | os.O_WRONLY
		row = strings.TrimSuffix(t.header, "\n") + "\n" + row
		t.begun = true
	}
	f, err := os.OpenFile(path, flags, 0o644)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	_, err = f.WriteString(row + "\n")
	Expect(err).NotTo(HaveOccurred())
}
