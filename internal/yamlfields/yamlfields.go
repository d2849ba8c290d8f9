// Package yamlfields decodes a hand-written YAML file strictly and, when a
// key names no field, says where: the file, line and column of the key, and
// the fields the mapping it is in has. sigs.k8s.io/yaml decodes through JSON,
// whose error names the key but not its line.
package yamlfields

import (
	"fmt"
	"reflect"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// UnmarshalStrict decodes raw into v as sigs.k8s.io/yaml's UnmarshalStrict
// does (json tags; unknown and duplicate keys refused). Its error names
// source; an unknown key's also its line, column and the fields it could
// have been.
func UnmarshalStrict(raw []byte, source string, v any) error {
	err := yaml.UnmarshalStrict(raw, v)
	if err == nil {
		return nil
	}
	var doc yamlv3.Node
	if strings.Contains(err.Error(), "unknown field") && yamlv3.Unmarshal(raw, &doc) == nil {
		if u, ok := findUnknown(&doc, reflect.TypeOf(v), ""); ok {
			return fmt.Errorf("%s:%d:%d: %s", source, u.line, u.column, u)
		}
	}
	return fmt.Errorf("%s: %w", source, err)
}

// unknown is a key no field takes.
type unknown struct {
	key, in      string // in: the path of its mapping ("" the top)
	fields       []string
	line, column int
}

func (u unknown) String() string {
	where := ""
	if u.in != "" {
		where = " in " + u.in
	}
	return fmt.Sprintf("unknown field %q%s (fields: %s)", u.key, where, strings.Join(u.fields, ", "))
}

// findUnknown walks n beside t and finds the first key, in document order,
// that names no field of the struct its mapping decodes into.
func findUnknown(n *yamlv3.Node, t reflect.Type, path string) (unknown, bool) {
	for n.Kind == yamlv3.DocumentNode || n.Kind == yamlv3.AliasNode {
		if n.Kind == yamlv3.AliasNode {
			n = n.Alias
		} else if len(n.Content) == 1 {
			n = n.Content[0]
		} else {
			return unknown{}, false
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return unknown{}, false
	}
	switch {
	case n.Kind == yamlv3.MappingNode && t.Kind() == reflect.Struct:
		return inStruct(n, t, path)
	case n.Kind == yamlv3.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if u, ok := findUnknown(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); ok {
				return u, true
			}
		}
	case n.Kind == yamlv3.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for i, e := range n.Content {
			if u, ok := findUnknown(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); ok {
				return u, true
			}
		}
	}
	return unknown{}, false
}

func inStruct(n *yamlv3.Node, t reflect.Type, path string) (unknown, bool) {
	fields := jsonFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Value == "<<" {
			continue // a merge key: its mapping's keys are checked where they are written
		}
		f, ok := lookup(fields, k.Value)
		if !ok {
			return unknown{key: k.Value, in: path, fields: names(fields), line: k.Line, column: k.Column}, true
		}
		if u, ok := findUnknown(n.Content[i+1], f.Type, join(path, k.Value)); ok {
			return u, true
		}
	}
	return unknown{}, false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// field is a struct field as encoding/json names it.
type field struct {
	name string
	reflect.Type
}

// jsonFields are t's fields as encoding/json decodes them, in declaration
// order: tagged names, embedded structs' fields inlined, "-" and
// unexported fields left out.
func jsonFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		ft := sf.Type
		if sf.Anonymous && tag == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if tag == "" {
			tag = sf.Name
		}
		out = append(out, field{tag, sf.Type})
	}
	return out
}

// lookup finds key's field as encoding/json does: an exact name first,
// then one equal but for case.
func lookup(fields []field, key string) (field, bool) {
	for _, f := range fields {
		if f.name == key {
			return f, true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return field{}, false
}

func names(fields []field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.name
	}
	return out
}

var (
	jsonUnmarshaler = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	textUnmarshaler = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
)

// decodesItself: a type that decodes its own JSON has keys of its own.
func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler)
}
