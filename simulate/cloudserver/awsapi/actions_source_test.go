package awsapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sort"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
)

// providerSources are the files whose interfaces list what the aws
// providers call: the in-tree provider of v1.26 and cloud-provider-aws of
// v1.27 (the pair every AWS user migrates across).
var providerSources = []struct{ mod, file string }{
	{"k8s.io/legacy-cloud-providers@v0.26.15", "aws/aws.go"},
	{"k8s.io/cloud-provider-aws@v1.27.2", "pkg/providers/v1/aws.go"},
}

// interfaceOf is the service each provider interface wraps.
var interfaceOf = map[string]string{"EC2": "ec2", "ELB": "elasticloadbalancing", "ELBV2": "elasticloadbalancingv2"}

// sentAs names the action a method sends where its name is not one.
var sentAs = map[string]string{
	"DescribeVolumeModifications":   "DescribeVolumesModifications",
	"WaitUntilLoadBalancersDeleted": "DescribeLoadBalancers",
}

// TestProviderActionsHoldInTheirSource: providerActions are exactly the
// methods of the providers' EC2, ELB and ELBV2 interfaces.
func TestProviderActionsHoldInTheirSource(t *testing.T) {
	found := map[string][]string{}
	for _, src := range providerSources {
		text, ok := modsource.Text(t, modsource.Dir(t, src.mod), src.file)
		if !ok {
			t.Fatalf("%s has no %s", src.mod, src.file)
		}
		f, err := parser.ParseFile(token.NewFileSet(), src.file, text, 0)
		if err != nil {
			t.Fatal(err)
		}
		for iface, methods := range interfaceMethods(f) {
			service, ok := interfaceOf[iface]
			if !ok {
				continue
			}
			for _, m := range methods {
				if a, ok := sentAs[m]; ok {
					m = a
				}
				if !slices.Contains(found[service], m) {
					found[service] = append(found[service], m)
				}
			}
		}
	}
	for service := range interfaceOf {
		got, want := found[interfaceOf[service]], slices.Clone(providerActions[interfaceOf[service]])
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the providers' interfaces call %v; providerActions lists %v", service, got, want)
		}
	}
}

// interfaceMethods lists each interface type's method names.
func interfaceMethods(f *ast.File) map[string][]string {
	out := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		if it, ok := ts.Type.(*ast.InterfaceType); ok {
			for _, m := range it.Methods.List {
				for _, name := range m.Names {
					out[ts.Name.Name] = append(out[ts.Name.Name], name.Name)
				}
			}
		}
		return false
	})
	return out
}
