package rancher

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// readDocument reads the one YAML document of the file at path, bounded
// as a manifest is (a Cluster carries its additionalManifest), refusing a
// file that is not YAML, holds several documents or repeats a key.
func readDocument(path, what string) (field, error) {
	raw, err := boundedfile.Read(path, boundedfile.ManifestLimit)
	if err != nil {
		return field{}, fmt.Errorf("reading the %s: %w", what, err)
	}
	return parseDocument(raw, field{source: path})
}

// parseDocument parses raw, a file's content or a YAML string inside one
// (in: that string's field), as one document whose top is a mapping.
func parseDocument(raw []byte, in field) (field, error) {
	top := field{source: in.source, path: in.path, base: in.line()}
	dec := yamlv3.NewDecoder(bytes.NewReader(raw))
	var doc yamlv3.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return top, top.errorf("holds no YAML document")
		}
		return top, top.errorf("not YAML: %s", oneLine(err))
	}
	var next yamlv3.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return top, top.errorf("holds more than one YAML document: give one")
	}
	// Decoding into a map is what refuses a repeated key; the node tree
	// would keep both.
	var probe any
	if err := doc.Decode(&probe); err != nil {
		return top, top.errorf("%s", oneLine(err))
	}
	top.node = doc.Content[0]
	if top.node.Kind != yamlv3.MappingNode {
		return top, top.errorf("want a mapping at the top, got %s", kindOf(top.node))
	}
	return top, nil
}

// parseDocuments parses a YAML string of several documents (a manifest)
// held in f, each a field named f's path and the document's index.
func parseDocuments(f field, raw string) ([]field, error) {
	dec := yamlv3.NewDecoder(strings.NewReader(raw))
	var out []field
	for i := 0; ; i++ {
		var doc yamlv3.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		at := field{source: f.source, path: fmt.Sprintf("%s[%d]", f.path, i), base: f.line()}
		if err != nil {
			return nil, at.errorf("not YAML: %s", oneLine(err))
		}
		var probe any
		if err := doc.Decode(&probe); err != nil {
			return nil, at.errorf("%s", oneLine(err))
		}
		if probe == nil {
			continue // an empty document between two ---
		}
		at.node = doc.Content[0]
		if at.node.Kind != yamlv3.MappingNode {
			return nil, at.errorf("want an object, got %s", kindOf(at.node))
		}
		out = append(out, at)
	}
}

// field is a value at a path of a document, or its absence (node nil).
// Every error and note about it names the file, the line and the path.
type field struct {
	source string
	path   string
	node   *yamlv3.Node
	// base is the line a document parsed out of a string starts at in
	// its file (0: the node's lines are the file's).
	base int
}

// at is where f is, for a Note.
func (f field) at() Where { return Where{Source: f.source, Field: f.path, Line: f.line()} }

func (f field) line() int {
	if f.node == nil {
		return f.base
	}
	return f.base + f.node.Line
}

// present: the field is there and not null.
func (f field) present() bool { return f.node != nil && f.node.Tag != "!!null" }

// errorf is an error about f: "file:line: path: …".
func (f field) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", f.at(), fmt.Sprintf(format, args...))
}

// get is the value of key in the mapping f (absent when f is absent or
// has no such key); a value that is not a mapping is an error.
func (f field) get(key string) (field, error) {
	child := field{source: f.source, path: join(f.path, key), base: f.base}
	if !f.present() {
		return child, nil
	}
	if f.node.Kind != yamlv3.MappingNode {
		return child, f.errorf("want a mapping, got %s", kindOf(f.node))
	}
	for i := 0; i+1 < len(f.node.Content); i += 2 {
		if f.node.Content[i].Value == key {
			child.node = resolve(f.node.Content[i+1])
			return child, nil
		}
	}
	return child, nil
}

// walk is the value at a dotted path of keys below f.
func (f field) walk(keys ...string) (field, error) {
	var err error
	for _, k := range keys {
		if f, err = f.get(k); err != nil {
			return f, err
		}
	}
	return f, nil
}

// items are the elements of the list f (none when absent).
func (f field) items() ([]field, error) {
	if !f.present() {
		return nil, nil
	}
	if f.node.Kind != yamlv3.SequenceNode {
		return nil, f.errorf("want a list, got %s", kindOf(f.node))
	}
	out := make([]field, len(f.node.Content))
	for i, n := range f.node.Content {
		out[i] = field{source: f.source, path: fmt.Sprintf("%s[%d]", f.path, i), node: resolve(n), base: f.base}
	}
	return out, nil
}

// entries are the keys and values of the mapping f, in order.
func (f field) entries() ([]string, []field, error) {
	if !f.present() {
		return nil, nil, nil
	}
	if f.node.Kind != yamlv3.MappingNode {
		return nil, nil, f.errorf("want a mapping, got %s", kindOf(f.node))
	}
	var keys []string
	var values []field
	for i := 0; i+1 < len(f.node.Content); i += 2 {
		k := f.node.Content[i].Value
		keys = append(keys, k)
		values = append(values, field{source: f.source, path: join(f.path, k), node: resolve(f.node.Content[i+1]), base: f.base})
	}
	return keys, values, nil
}

// str is the string f holds ("" when absent). A value YAML reads as
// another type (true, 1.27) is refused, as Rancher's typed fields refuse
// it: quote it.
func (f field) str() (string, error) {
	if !f.present() {
		return "", nil
	}
	if f.node.Kind != yamlv3.ScalarNode {
		return "", f.errorf("want a string, got %s", kindOf(f.node))
	}
	if f.node.Tag != "!!str" {
		return "", f.errorf("want a string, got %s (quote it)", kindOf(f.node))
	}
	return f.node.Value, nil
}

// scalar is the text of any scalar f holds, as a chart's template prints
// a value ("" when absent).
func (f field) scalar() (string, error) {
	if !f.present() {
		return "", nil
	}
	if f.node.Kind != yamlv3.ScalarNode {
		return "", f.errorf("want a single value, got %s", kindOf(f.node))
	}
	return f.node.Value, nil
}

// boolean is the true or false f holds (def when absent).
func (f field) boolean(def bool) (bool, error) {
	if !f.present() {
		return def, nil
	}
	var b bool
	if f.node.Kind != yamlv3.ScalarNode || f.node.Tag != "!!bool" || f.node.Decode(&b) != nil {
		return false, f.errorf("want true or false, got %s", kindOf(f.node))
	}
	return b, nil
}

// strs are the strings of the list f, each with its field; a single
// string is a list of one, as RKE2's configuration file reads a list flag.
func (f field) strs() ([]string, []field, error) {
	if f.present() && f.node.Kind == yamlv3.ScalarNode {
		s, err := f.str()
		return []string{s}, []field{f}, err
	}
	items, err := f.items()
	if err != nil {
		return nil, nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = it.str(); err != nil {
			return nil, nil, err
		}
	}
	return out, items, nil
}

// strAt is the string at a path of keys below f ("" when absent).
func (f field) strAt(keys ...string) (string, error) {
	v, err := f.walk(keys...)
	if err != nil {
		return "", err
	}
	return v.str()
}

// resolve follows an alias to what it names.
func resolve(n *yamlv3.Node) *yamlv3.Node {
	for n != nil && n.Kind == yamlv3.AliasNode {
		n = n.Alias
	}
	return n
}

// kindOf names a node's kind for an error.
func kindOf(n *yamlv3.Node) string {
	switch n.Kind {
	case yamlv3.MappingNode:
		return "a mapping"
	case yamlv3.SequenceNode:
		return "a list"
	}
	kinds := map[string]string{"!!str": "a string", "!!bool": "a boolean", "!!int": "a number", "!!float": "a number", "!!null": "nothing"}
	if k, ok := kinds[n.Tag]; ok {
		return fmt.Sprintf("%s (%s)", k, n.Value)
	}
	return n.Tag
}

// oneLine is a YAML error on one line (yaml.v3 lists its errors one a
// line): an error is said in one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
