package awsconfig

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
)

// TestStructsHoldToTheirSource: each release's copy has the fields of
// CloudConfig's Global and ServiceOverride in its source, by name, type
// and order (gcfg matches variables to field names).
func TestStructsHoldToTheirSource(t *testing.T) {
	for code, r := range readers {
		t.Run(code, func(t *testing.T) {
			text, ok := modsource.Text(t, modsource.Dir(t, r.source), r.file)
			if !ok {
				t.Fatalf("%s has no %s", r.source, r.file)
			}
			global, override := sourceFields(t, text)
			v := reflect.TypeOf(r.new()).Elem()
			if got := goFields(v.Field(0).Type); !slices.Equal(got, global) {
				t.Errorf("Global:\n handover %v\n source   %v", got, global)
			}
			if got := goFields(reflect.TypeOf(Override{})); !slices.Equal(got, override) {
				t.Errorf("ServiceOverride:\n handover %v\n source   %v", got, override)
			}
			if v.Field(0).Name != "Global" || v.Field(1).Name != "ServiceOverride" {
				t.Errorf("struct fields %s, %s: want Global, ServiceOverride", v.Field(0).Name, v.Field(1).Name)
			}
		})
	}
}

// goFields are a struct type's fields as "Name type `tag`" (gcfg reads a
// field's tag for the variable's name).
func goFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		out = append(out, t.Field(i).Name+" "+t.Field(i).Type.String()+" `"+string(t.Field(i).Tag)+"`")
	}
	return out
}

// sourceFields are the fields of CloudConfig's Global and of its
// ServiceOverride map's element, as "Name type `tag`".
func sourceFields(t *testing.T, src string) (global, override []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "aws.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cfg *ast.StructType
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "CloudConfig" {
			cfg, _ = ts.Type.(*ast.StructType)
		}
		return cfg == nil
	})
	if cfg == nil {
		t.Fatal("no CloudConfig struct in the source")
	}
	for _, fld := range cfg.Fields.List {
		switch fld.Names[0].Name {
		case "Global":
			global = astFields(t, fld.Type)
		case "ServiceOverride":
			m := fld.Type.(*ast.MapType)
			override = astFields(t, m.Value.(*ast.StarExpr).X)
		}
	}
	if len(global) == 0 || len(override) == 0 {
		t.Fatalf("CloudConfig without Global (%d fields) or ServiceOverride (%d)", len(global), len(override))
	}
	return global, override
}

func astFields(t *testing.T, e ast.Expr) []string {
	t.Helper()
	st, ok := e.(*ast.StructType)
	if !ok {
		t.Fatalf("%T is not a struct", e)
	}
	var out []string
	for _, fld := range st.Fields.List {
		tag := ""
		if fld.Tag != nil {
			tag = strings.Trim(fld.Tag.Value, "`")
		}
		for _, n := range fld.Names {
			out = append(out, n.Name+" "+typeString(fld.Type)+" `"+tag+"`")
		}
	}
	return out
}

func typeString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.ArrayType:
		return "[]" + typeString(x.Elt)
	}
	return "?"
}

// TestReadingHoldsToTheSource: what Read and ClusterID imitate of each
// release besides its struct. Its go.mod requires the gcfg this package
// parses with; it takes any error of gcfg.ReadInto, warnings included, as
// the file's refusal (no gcfg.FatalOnly); and its tags.go prefers the
// legacy KubernetesClusterTag and refuses one that differs from
// KubernetesClusterID.
func TestReadingHoldsToTheSource(t *testing.T) {
	refused := regexp.MustCompile(`err = gcfg\.ReadInto\(&cfg, config\)\s+if err != nil \{\s+return nil, err`)
	for code, r := range readers {
		t.Run(code, func(t *testing.T) {
			dir := modsource.Dir(t, r.source)
			for file, want := range map[string][]*regexp.Regexp{
				"go.mod":                               {regexp.MustCompile(`gopkg\.in/gcfg\.v1 v1\.2\.3\b`)},
				r.file:                                 {refused},
				path.Join(path.Dir(r.file), "tags.go"): {regexp.MustCompile(`if legacyClusterID != "" \{\s+if clusterID != "" && legacyClusterID != clusterID \{\s+return fmt\.Errorf\("clusterID tags did not match`), regexp.MustCompile(`clusterID = legacyClusterID`)},
			} {
				text, ok := modsource.Text(t, dir, file)
				if !ok {
					t.Fatalf("%s has no %s", r.source, file)
				}
				for _, re := range want {
					if !re.MatchString(text) {
						t.Errorf("%s %s: no %s", r.source, file, re)
					}
				}
				if strings.Contains(text, "gcfg.FatalOnly") {
					t.Errorf("%s %s reads with gcfg.FatalOnly: warnings no longer refuse a file", r.source, file)
				}
			}
		})
	}
}
