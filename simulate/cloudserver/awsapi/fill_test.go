package awsapi

import (
	"math/rand"
	"reflect"
	"strings"
	"time"
)

// filler sets every field of an SDK struct to a random value, to a depth:
// the round-trip tests' inputs. Strings carry the characters a query
// string and XML must escape.
type filler struct {
	rnd   *rand.Rand
	depth int
}

const fillAlphabet = "abcXYZ019 -_.~&=+%/:?#<>'\"é"

func (f filler) fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		if v.Type().Elem().Kind() == reflect.Struct && depth >= f.depth && v.Type().Elem() != reflect.TypeOf(time.Time{}) {
			return // an empty struct, as the SDK reads an empty element
		}
		f.fill(v.Elem(), depth)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(f.rnd.Int63n(4e9), f.rnd.Int63n(1e9)).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(f.text()))
			return
		}
		n := 1 + f.rnd.Intn(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i), depth)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 1 + f.rnd.Intn(3) {
			val := reflect.New(v.Type().Elem()).Elem()
			f.fill(val, depth)
			m.SetMapIndex(reflect.ValueOf(f.text()), val)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(f.text())
	case reflect.Bool:
		v.SetBool(f.rnd.Intn(2) == 1)
	case reflect.Int64:
		v.SetInt(f.rnd.Int63() - f.rnd.Int63())
	case reflect.Float64:
		v.SetFloat(float64(f.rnd.Int63n(1e6)) / 8)
	}
}

func (f filler) text() string {
	var b strings.Builder
	for range 1 + f.rnd.Intn(12) {
		r := []rune(fillAlphabet)
		b.WriteRune(r[f.rnd.Intn(len(r))])
	}
	return b.String()
}
