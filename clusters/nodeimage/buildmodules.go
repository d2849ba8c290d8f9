package nodeimage

import (
	"bytes"
	"embed"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
)

// The Kubernetes build modules (modules/kubernetes-v1.N) differ from minor to
// minor only in their go.mod and go.sum: their mains, which register the
// simulated cloud's provider into the upstream commands, are rendered from
// one source (buildmodules/*.go.tmpl) by generatedBuildFiles, and a test
// fails when a module's file differs from it (`go test ./clusters/nodeimage/
// -run TestBuildModulesAreGenerated -update` writes them).

//go:embed buildmodules/*.go.tmpl
var buildTemplates embed.FS

// buildFile is one file of a Kubernetes build module, for the releases
// when says.
type buildFile struct {
	path     string // under the module's directory
	template string // under buildmodules/
	when     func(minor int, r Release) bool
}

var buildFiles = []buildFile{
	{"kubelet/main.go", "kubelet-main.go.tmpl", withInTreeCloud},
	{"kubelet/credentials.go", "kubelet-credentials.go.tmpl", withInTreeCloud},
	{"kube-controller-manager/main.go", "kube-controller-manager-main.go.tmpl", withInTreeCloud},
	// Before 1.28 the cloud-controller-manager command takes no controller
	// aliases and its node IPAM controller is "nodeipam" (ccmcontrollers);
	// from 1.28 simulate/cloudprovider/ccmmain's main serves every minor.
	{"cloud-controller-manager/main.go", "cloud-controller-manager-main-before-1.28.go.tmpl", func(m int, _ Release) bool { return m < 28 }},
	{"cloud-controller-manager/main.go", "cloud-controller-manager-main.go.tmpl", func(m int, _ Release) bool { return m >= 28 }},
}

// withInTreeCloud: the kubelet and kube-controller-manager are built with
// the simulated provider only where they still have in-tree cloud loops.
func withInTreeCloud(_ int, r Release) bool { return r.InTreeCloud }

// generatedBuildFiles renders every Kubernetes build module's mains, by
// path under modules/.
func generatedBuildFiles() (map[string][]byte, error) {
	last := lastInTreeMinor()
	out := map[string][]byte{}
	for _, r := range Releases {
		minor, err := minorOf(r.Kubernetes)
		if err != nil {
			return nil, err
		}
		data := struct{ Minor, LastInTree string }{fmt.Sprintf("v1.%d", minor), fmt.Sprintf("v1.%d", last)}
		for _, f := range buildFiles {
			if !f.when(minor, r) {
				continue
			}
			b, err := renderBuildFile(f.template, data)
			if err != nil {
				return nil, err
			}
			out[filepath.Join(r.Module, f.path)] = b
		}
	}
	return out, nil
}

func renderBuildFile(name string, data any) ([]byte, error) {
	t, err := template.ParseFS(buildTemplates, "buildmodules/"+name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// lastInTreeMinor is the newest minor whose managers still have in-tree
// cloud loops.
func lastInTreeMinor() int {
	last := 0
	for _, r := range Releases {
		if m, err := minorOf(r.Kubernetes); err == nil && r.InTreeCloud && m > last {
			last = m
		}
	}
	return last
}

// minorOf is 30 for "v1.30.14".
func minorOf(version string) (int, error) {
	parts := strings.Split(strings.TrimPrefix(version, "v"), ".")
	if len(parts) < 2 || parts[0] != "1" {
		return 0, fmt.Errorf("version %q is not v1.MINOR.PATCH", version)
	}
	return strconv.Atoi(parts[1])
}
