package layering_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// graph is a tree's packages and the tree's packages each imports, read
// from the source of every module in it (each go.mod: the main one, the
// simulated cloud's, the node images' build modules, the providers'
// drivers) by parsing imports: nothing is downloaded or built, so it is as
// fast as `make unit` needs, and it sees the modules `go list ./...`
// skips. Packages are named by their directory in the tree.
type graph map[string][]string

// treeModule is a module in the tree: its path and its directory there.
type treeModule struct{ path, dir string }

// readGraph parses every non-test Go file under root.
func readGraph(root string) (graph, error) {
	mods, err := modules(root)
	if err != nil {
		return nil, err
	}
	g := graph{}
	err = walkGoFiles(root, func(path, _ string) error { return g.addFile(root, path, mods) })
	return g, err
}

// walkGoFiles calls fn with the path and the tree path of every non-test
// Go file of the tree.
func walkGoFiles(root string, fn func(path, rel string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return skipDir(root, path, d)
		case !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		return fn(path, rel(root, path))
	})
}

// skipDir passes over what holds no package of the tree.
func skipDir(root, path string, d fs.DirEntry) error {
	n := d.Name()
	if path != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor") {
		return filepath.SkipDir
	}
	return nil
}

// addFile records the tree's packages that the file at path imports.
func (g graph) addFile(root, path string, mods []treeModule) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return err
	}
	if ignored(f) {
		return nil
	}
	pkg := rel(root, filepath.Dir(path))
	if _, ok := g[pkg]; !ok {
		g[pkg] = nil
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if dep, ok := inTree(p, mods); ok && dep != pkg && !slices.Contains(g[pkg], dep) {
			g[pkg] = append(g[pkg], dep)
		}
	}
	return nil
}

// ignored: a file no build includes (//go:build ignore).
func ignored(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.TrimSpace(c.Text) == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}

// inTree names the tree's package at import path p: the innermost module
// whose path is p's prefix holds it.
func inTree(p string, mods []treeModule) (string, bool) {
	for _, m := range mods { // longest path first
		if p == m.path {
			return m.dir, true
		}
		if sub, ok := strings.CutPrefix(p, m.path+"/"); ok {
			return strings.TrimPrefix(m.dir+"/"+sub, "./"), true
		}
	}
	return "", false
}

// modules lists the tree's modules, longest path first.
func modules(root string) ([]treeModule, error) {
	var mods []treeModule
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return skipDir(root, path, d)
		case d.Name() != "go.mod":
			return nil
		}
		mp, err := modulePath(path)
		if err != nil {
			return err
		}
		mods = append(mods, treeModule{path: mp, dir: rel(root, filepath.Dir(path))})
		return nil
	})
	sort.Slice(mods, func(i, j int) bool { return len(mods[i].path) > len(mods[j].path) })
	return mods, err
}

// modulePath reads a go.mod's module line.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if p, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`), nil
		}
	}
	return "", fmt.Errorf("%s names no module", gomod)
}

// rel is dir's path in the tree ("." for the root).
func rel(root, dir string) string {
	r, _ := filepath.Rel(root, dir)
	return filepath.ToSlash(r)
}

// deps is every tree package pkg depends on, directly or through others.
func (g graph) deps(pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, d := range g[p] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(pkg)
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
