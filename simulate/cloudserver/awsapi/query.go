package awsapi

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// maxListItems bounds a list or map in a request: the largest the
// providers send is a load balancer's instances, one per node.
const maxListItems = 5000

// decodeQuery fills in (a pointer to an SDK input struct) from a request's
// form, named as aws-sdk-go's query serialiser names it
// (private/protocol/query/queryutil): EC2's flavour (ec2) capitalises
// locationName, prefers queryName and flattens every list; the query
// protocol nests lists under "member" (or locationNameList) and maps under
// "entry". Parameters that name no field are returned, so a caller can
// refuse them as AWS refuses an unknown parameter.
func decodeQuery(form url.Values, in any, ec2 bool) (unknown []string, err error) {
	d := queryDecoder{form: form, ec2: ec2, used: map[string]bool{}, prefixes: map[string]bool{}}
	for k := range form {
		for i := strings.IndexByte(k, '.'); i >= 0; i = next(k, i) {
			d.prefixes[k[:i]] = true
		}
		d.prefixes[k] = true
	}
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("decoding into %T: want a pointer to a struct", in)
	}
	if err := d.structure(v.Elem(), ""); err != nil {
		return nil, err
	}
	for k := range form {
		if !d.used[k] && k != "Action" && k != "Version" {
			unknown = append(unknown, k)
		}
	}
	return unknown, nil
}

func next(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '.')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

type queryDecoder struct {
	form     url.Values
	ec2      bool
	used     map[string]bool
	prefixes map[string]bool // every key and every dotted prefix of one
}

// kind is the SDK's shape of a field: its type tag, else its Go kind.
func kind(t reflect.Type, tag reflect.StructTag) string {
	if k := tag.Get("type"); k != "" {
		return k
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && t != reflect.TypeOf(time.Time{}):
		return "structure"
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return "list"
	case t.Kind() == reflect.Map:
		return "map"
	}
	return "scalar"
}

func (d *queryDecoder) value(v reflect.Value, name string, tag reflect.StructTag) error {
	if !d.prefixes[name] {
		return nil
	}
	switch kind(v.Type(), tag) {
	case "structure":
		if v.Kind() == reflect.Pointer {
			v.Set(reflect.New(v.Type().Elem()))
			v = v.Elem()
		}
		return d.structure(v, name)
	case "list":
		return d.list(v, name, tag)
	case "map":
		return d.mapping(v, name, tag)
	}
	return d.scalar(v, name, tag)
}

// fieldName is a field's parameter name, as queryutil's parseStruct forms it.
func (d *queryDecoder) fieldName(f reflect.StructField) string {
	if d.ec2 {
		if n := f.Tag.Get("queryName"); n != "" {
			return n
		}
	}
	name := f.Tag.Get("locationName")
	if f.Tag.Get("flattened") != "" && f.Tag.Get("locationNameList") != "" {
		name = f.Tag.Get("locationNameList")
	}
	if name == "" {
		return f.Name
	}
	if d.ec2 {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return name
}

func (d *queryDecoder) structure(v reflect.Value, prefix string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("ignore") != "" {
			continue
		}
		name := d.fieldName(f)
		if prefix != "" {
			name = prefix + "." + name
		}
		if err := d.value(v.Field(i), name, f.Tag); err != nil {
			return err
		}
	}
	return nil
}

// items calls each(i, prefix of item i) for items 1, 2, ... while the form
// has them.
func (d *queryDecoder) items(prefix string, each func(string) error) error {
	for i := 1; d.prefixes[prefix+"."+strconv.Itoa(i)]; i++ {
		if i > maxListItems {
			return fmt.Errorf("%s: more than %d items", prefix, maxListItems)
		}
		if err := each(prefix + "." + strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

func (d *queryDecoder) list(v reflect.Value, name string, tag reflect.StructTag) error {
	if vals, ok := d.form[name]; ok && len(vals) == 1 && vals[0] == "" {
		d.used[name] = true // an empty list, as queryutil writes one
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return nil
	}
	if !d.ec2 && tag.Get("flattened") == "" {
		member := tag.Get("locationNameList")
		if member == "" {
			member = "member"
		}
		name += "." + member
	}
	return d.items(name, func(item string) error {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := d.value(elem, item, ""); err != nil {
			return err
		}
		v.Set(reflect.Append(v, elem))
		return nil
	})
}

func (d *queryDecoder) mapping(v reflect.Value, name string, tag reflect.StructTag) error {
	if !d.ec2 && tag.Get("flattened") == "" {
		name += ".entry"
	}
	kname, vname := tag.Get("locationNameKey"), tag.Get("locationNameValue")
	if kname == "" {
		kname = "key"
	}
	if vname == "" {
		vname = "value"
	}
	v.Set(reflect.MakeMap(v.Type()))
	return d.items(name, func(item string) error {
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		if err := d.value(key, item+"."+kname, ""); err != nil {
			return err
		}
		if err := d.value(val, item+"."+vname, ""); err != nil {
			return err
		}
		v.SetMapIndex(key, val)
		return nil
	})
}

func (d *queryDecoder) scalar(v reflect.Value, name string, tag reflect.StructTag) error {
	vals, ok := d.form[name]
	if !ok {
		return nil
	}
	d.used[name] = true
	text := vals[0]
	parsed, err := parseScalar(v.Type(), text, tag)
	if err != nil {
		return fmt.Errorf("parameter %s=%q: %w", name, text, err)
	}
	v.Set(parsed)
	return nil
}

// parseScalar parses text as the SDK's scalar types (pointers to string,
// bool, int64, float64, time.Time; []byte as base64; a map's plain string
// key).
func parseScalar(t reflect.Type, text string, tag reflect.StructTag) (reflect.Value, error) {
	var out any
	var err error
	switch t {
	case reflect.TypeOf(""):
		return reflect.ValueOf(text), nil
	case reflect.TypeOf((*string)(nil)):
		out = &text
	case reflect.TypeOf((*bool)(nil)):
		var b bool
		b, err = strconv.ParseBool(text)
		out = &b
	case reflect.TypeOf((*int64)(nil)):
		var n int64
		n, err = strconv.ParseInt(text, 10, 64)
		out = &n
	case reflect.TypeOf((*float64)(nil)):
		var f float64
		f, err = strconv.ParseFloat(text, 64)
		out = &f
	case reflect.TypeOf((*time.Time)(nil)):
		var tm time.Time
		tm, err = parseTime(text, tag.Get("timestampFormat"))
		out = &tm
	case reflect.TypeOf([]byte(nil)):
		var b []byte
		b, err = base64.StdEncoding.DecodeString(text)
		out = b
	default:
		return reflect.Value{}, fmt.Errorf("no scalar of type %s", t)
	}
	if err != nil {
		return reflect.Value{}, err
	}
	return reflect.ValueOf(out), nil
}
