package awsapi

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"time"
)

// xmlWriter writes an SDK output struct's fields as the SDK's XML reader
// (private/protocol/xml/xmlutil/unmarshal.go) looks for them: a field by
// its locationName (or its flattened list's locationNameList), a list's
// items under "member" or its locationNameList unless flattened, a map's
// under "entry".
type xmlWriter struct{ enc *xml.Encoder }

func (w xmlWriter) start(name string) error {
	return w.enc.EncodeToken(xml.StartElement{Name: xml.Name{Local: name}})
}

func (w xmlWriter) end(name string) error {
	return w.enc.EncodeToken(xml.EndElement{Name: xml.Name{Local: name}})
}

func (w xmlWriter) text(name, text string) error {
	return w.enc.EncodeElement(text, xml.StartElement{Name: xml.Name{Local: name}})
}

// fields writes a struct's set fields as elements of the current one.
func (w xmlWriter) fields(v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("location") != "" || isNil(v.Field(i)) {
			continue
		}
		name := f.Tag.Get("locationName")
		if f.Tag.Get("flattened") != "" && f.Tag.Get("locationNameList") != "" {
			name = f.Tag.Get("locationNameList")
		}
		if name == "" {
			name = f.Name
		}
		if err := w.value(v.Field(i), name, f.Tag); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// value writes v as the element(s) called name.
func (w xmlWriter) value(v reflect.Value, name string, tag reflect.StructTag) error {
	switch kind(v.Type(), tag) {
	case "structure":
		return w.wrap(name, func() error { return w.fields(v) })
	case "list":
		return w.list(v, name, tag)
	case "map":
		return w.mapping(v, name, tag)
	}
	text, err := scalarText(v, tag)
	if err != nil {
		return err
	}
	return w.text(name, text)
}

func (w xmlWriter) wrap(name string, inner func() error) error {
	if err := w.start(name); err != nil {
		return err
	}
	if err := inner(); err != nil {
		return err
	}
	return w.end(name)
}

func (w xmlWriter) list(v reflect.Value, name string, tag reflect.StructTag) error {
	if tag.Get("flattened") != "" {
		for i := range v.Len() {
			if err := w.value(v.Index(i), name, ""); err != nil {
				return err
			}
		}
		return nil
	}
	member := tag.Get("locationNameList")
	if member == "" {
		member = "member"
	}
	return w.wrap(name, func() error {
		for i := range v.Len() {
			if err := w.value(v.Index(i), member, ""); err != nil {
				return err
			}
		}
		return nil
	})
}

func (w xmlWriter) mapping(v reflect.Value, name string, tag reflect.StructTag) error {
	kname, vname := tag.Get("locationNameKey"), tag.Get("locationNameValue")
	if kname == "" {
		kname = "key"
	}
	if vname == "" {
		vname = "value"
	}
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	entry := func(k reflect.Value) error {
		if err := w.text(kname, k.String()); err != nil {
			return err
		}
		return w.value(v.MapIndex(k), vname, "")
	}
	if tag.Get("flattened") != "" {
		for _, k := range keys {
			if err := w.wrap(name, func() error { return entry(k) }); err != nil {
				return err
			}
		}
		return nil
	}
	return w.wrap(name, func() error {
		for _, k := range keys {
			if err := w.wrap("entry", func() error { return entry(k) }); err != nil {
				return err
			}
		}
		return nil
	})
}

func scalarText(v reflect.Value, tag reflect.StructTag) (string, error) {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case time.Time:
		return formatTime(x, tag.Get("timestampFormat")), nil
	case []byte:
		return base64.StdEncoding.EncodeToString(x), nil
	}
	return "", fmt.Errorf("no scalar of type %s", v.Type())
}
