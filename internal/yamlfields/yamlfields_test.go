package yamlfields

import (
	"strings"
	"testing"
)

type inner struct {
	SecondInterface bool  `json:"secondInterface,omitempty"`
	NodeIP          *bool `json:"kubeletNodeIP,omitempty"`
}

type embedded struct {
	Out string `json:"out"`
}

type config struct {
	embedded
	Name     string            `json:"name"`
	Machines inner             `json:"machines"`
	Items    []inner           `json:"items"`
	ByName   map[string]*inner `json:"byName"`
	Args     map[string]string `json:"args"`
	skipped  string
	Ignored  string `json:"-"`
}

func TestUnknownKeysSayWhere(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"top": {"name: a\nmachnes: {}\n",
			`f.yaml:2:1: unknown field "machnes" (fields: out, name, machines, items, byName, args)`},
		"nested": {"name: a\nmachines:\n  secondInterface: true\n  kubeletNodeIp: true\n  nodeIP: false\n",
			`f.yaml:5:3: unknown field "nodeIP" in machines (fields: secondInterface, kubeletNodeIP)`},
		"in a list": {"items:\n- secondInterface: true\n- {second: true}\n",
			`f.yaml:3:4: unknown field "second" in items[1]`},
		"in a map's value": {"byName:\n  a: {secondInterfaces: true}\n",
			`f.yaml:2:7: unknown field "secondInterfaces" in byName.a`},
		"left out by its tag": {"Ignored: x\n", `f.yaml:1:1: unknown field "Ignored"`},
		"unexported":          {"skipped: x\n", `f.yaml:1:1: unknown field "skipped"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var v config
			err := UnmarshalStrict([]byte(c.in), "f.yaml", &v)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestKnownKeysDecode(t *testing.T) {
	var v config
	in := "out: o\nNAME: nm\nmachines: {secondInterface: true}\nargs: {anything: x}\n"
	if err := UnmarshalStrict([]byte(in), "f.yaml", &v); err != nil {
		t.Fatal(err)
	}
	if v.Out != "o" || v.Name != "nm" || v.skipped != "" || !v.Machines.SecondInterface || v.Args["anything"] != "x" {
		t.Errorf("decoded %+v", v)
	}
}

// Errors other than an unknown key are sigs.k8s.io/yaml's, naming the file.
func TestOtherErrorsNameTheFile(t *testing.T) {
	var v config
	for in, want := range map[string]string{
		"name: [a":           "f.yaml: ",
		"name: a\nname: b\n": "f.yaml: ",
		"machines: 3\n":      "f.yaml: ",
	} {
		if err := UnmarshalStrict([]byte(in), "f.yaml", &v); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want it to start %q", in, err, want)
		}
	}
}
