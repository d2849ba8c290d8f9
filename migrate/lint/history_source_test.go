package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// packageSource is the text of a package's non-test Go files.
func packageSource(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			b.WriteString(read(t, filepath.Join(dir, n)))
		}
	}
	return b.String()
}

// funcBody is the text of a top-level function, from its signature to its
// closing brace.
func funcBody(t *testing.T, src, signature string) string {
	t.Helper()
	i := strings.Index(src, signature)
	if i < 0 {
		t.Fatalf("no %s", signature)
	}
	j := strings.Index(src[i:], "\n}\n")
	if j < 0 {
		t.Fatalf("%s does not end", signature)
	}
	return src[i : i+j]
}

const lockedGate = `ControllerManagerLeaderMigration: {Default: true, PreRelease: featuregate.GA, LockToDefault: true}`

// TestGateHistoryMatchesSource: the gate is GA and locked to true from 1.24
// and gone from 1.27, in the managers' own feature lists.
func TestGateHistoryMatchesSource(t *testing.T) {
	// The boundary below the minors handover runs: beta, settable, in
	// 1.23; locked in 1.24.
	for v, locked := range map[string]bool{"0.23.0": false, "0.24.0": true} {
		features := read(t, filepath.Join(moduleDir(t, "k8s.io/controller-manager@v"+v), "pkg", "features", "kube_features.go"))
		if !strings.Contains(features, leaderMigrationGate) || strings.Contains(features, lockedGate) != locked || minorAtLeast("1"+strings.TrimPrefix(v, "0"), gateLockedMinor) != locked {
			t.Errorf("controller-manager v%s: gate locked %t in the source, not as gateLockedMinor says", v, !locked)
		}
	}
	for minor, v := range sourceReleases {
		t.Run(minor, func(t *testing.T) {
			present := minorAtLeast(minor, gateLockedMinor) && !minorAtLeast(minor, gateRemovedMinor)
			cm := read(t, filepath.Join(moduleDir(t, "k8s.io/controller-manager@v"+v), "pkg", "features", "kube_features.go"))
			kube := packageSource(t, filepath.Join(moduleDir(t, "k8s.io/kubernetes@v1"+strings.TrimPrefix(v, "0")), "pkg", "features"))
			for name, src := range map[string]string{"k8s.io/controller-manager": cm, "k8s.io/kubernetes": kube} {
				if strings.Contains(src, lockedGate) != present || strings.Contains(src, leaderMigrationGate) != present {
					t.Errorf("%s %s pkg/features: the gate is locked to true: %t; the lint says %t", name, minor, strings.Contains(src, lockedGate), present)
				}
			}
			gate := read(t, filepath.Join(moduleDir(t, "k8s.io/component-base@v"+v), "featuregate", "feature_gate.go"))
			for _, refusal := range []string{`"unrecognized feature gate: %s"`, `"cannot set feature gate %v to %v, feature is locked to %v"`, `"missing bool value for %s"`} {
				if !strings.Contains(gate, refusal) {
					t.Errorf("component-base %s featuregate no longer refuses with %s", minor, refusal)
				}
			}
		})
	}
}

// TestLockHistoryMatchesSource: client-go's resourcelock.New refuses
// endpoints and configmaps from 1.24 and the two multi-locks from 1.28; a
// LeaderMigrationConfiguration may name only leases or endpoints; both
// managers exit when a lock cannot be made.
func TestLockHistoryMatchesSource(t *testing.T) {
	check := func(t *testing.T, minor, v string) {
		iface := read(t, filepath.Join(moduleDir(t, "k8s.io/client-go@v"+v), "tools", "leaderelection", "resourcelock", "interface.go"))
		newFn := funcBody(t, iface, "func New(")
		for lock, since := range removedLocks {
			if !strings.Contains(iface, `= "`+lock+`"`) {
				t.Errorf("client-go %s has no %s lock type", v, lock)
			}
			if removed := strings.Contains(newFn, `"`+lock+` lock is removed`); removed != minorAtLeast(minor, since) {
				t.Errorf("client-go %s: New refuses %s: %t; the lint says from 1.%d", v, lock, removed, since)
			}
		}
		if !strings.Contains(newFn, "return leaseLock, nil") || !strings.Contains(newFn, `fmt.Errorf("Invalid lock-type %s", lockType)`) {
			t.Errorf("client-go %s: New no longer makes leases and refuses the rest", v)
		}
	}
	// The boundary below the minors handover runs.
	for _, v := range []string{"0.23.17", "0.24.0"} {
		t.Run(v, func(t *testing.T) { check(t, "1"+strings.TrimPrefix(v, "0"), v) })
	}
	exits := regexp.MustCompile(`(?s)rl, err := resourcelock\.NewFromKubeconfig\(resourceLock,.*?\)\n\tif err != nil \{\n[^}]*(klog\.Fatalf|klog\.FlushAndExit)`)
	for minor, v := range sourceReleases {
		t.Run(minor, func(t *testing.T) {
			check(t, minor, v)
			config := read(t, filepath.Join(moduleDir(t, "k8s.io/controller-manager@v"+v), "pkg", "leadermigration", "config", "config.go"))
			validate := funcBody(t, config, "func ValidateLeaderMigrationConfiguration(")
			var takes []string
			for _, c := range regexp.MustCompile(`const (ResourceLock\w+) = "(\w+)"`).FindAllStringSubmatch(config, -1) {
				if strings.Contains(validate, "config.ResourceLock != "+c[1]) {
					takes = append(takes, c[2])
				}
			}
			if !slices.Equal(takes, migrationLocks) || !strings.Contains(validate, "config.ResourceLock != ResourceLockLeases && config.ResourceLock != ResourceLockEndpoints") {
				t.Errorf("controller-manager %s: the configuration's check takes %v, the lint %v", minor, takes, migrationLocks)
			}
			kcm := read(t, filepath.Join(moduleDir(t, "k8s.io/kubernetes@v1"+strings.TrimPrefix(v, "0")), "cmd", "kube-controller-manager", "app", "controllermanager.go"))
			ccm := read(t, filepath.Join(moduleDir(t, "k8s.io/cloud-provider@v"+v), "app", "controllermanager.go"))
			for name, src := range map[string]string{"kube-controller-manager": kcm, "cloud-controller-manager": ccm} {
				if !exits.MatchString(src) || !strings.Contains(src, "c.ComponentConfig.Generic.LeaderMigration.ResourceLock,") || !strings.Contains(src, "c.ComponentConfig.Generic.LeaderElection.ResourceLock,") {
					t.Errorf("%s %s no longer makes its main and migration locks with resourcelock.NewFromKubeconfig and exits on its error", name, minor)
				}
			}
		})
	}
}

// TestDecodingHistoryMatchesSource: ReadLeaderMigrationConfiguration decodes
// leniently up to 1.31 and strictly from 1.32, and the manager stops on its
// error.
func TestDecodingHistoryMatchesSource(t *testing.T) {
	const lenient, strict = "serializer.NewCodecFactory(cfgScheme).UniversalDecoder().Decode(data, nil, nil)",
		"serializer.NewCodecFactory(cfgScheme, serializer.EnableStrict).UniversalDecoder().Decode(data, nil, nil)"
	applyTo := regexp.MustCompile(`ReadLeaderMigrationConfiguration\(o\.ControllerMigrationConfig\)\n\tif err != nil \{\n\t\treturn err\n`)
	for minor, v := range sourceReleases {
		t.Run(minor, func(t *testing.T) {
			cm := moduleDir(t, "k8s.io/controller-manager@v"+v)
			body := funcBody(t, read(t, filepath.Join(cm, "pkg", "leadermigration", "config", "config.go")), "func ReadLeaderMigrationConfiguration(")
			want := minorAtLeast(minor, strictDecodeMinor)
			if strings.Contains(body, strict) != want || strings.Contains(body, lenient) == want {
				t.Errorf("controller-manager %s: strict decoding %t in the source; the lint says from 1.%d", minor, strings.Contains(body, strict), strictDecodeMinor)
			}
			if !strings.Contains(body, "if err != nil {\n\t\treturn nil, err\n\t}") {
				t.Errorf("controller-manager %s: ReadLeaderMigrationConfiguration no longer returns the decoding error", minor)
			}
			if !applyTo.MatchString(read(t, filepath.Join(cm, "pkg", "leadermigration", "options", "options.go"))) {
				t.Errorf("controller-manager %s: ApplyTo no longer stops on a file it cannot read", minor)
			}
		})
	}
	// The last 1.31 patch still decodes leniently.
	last131 := read(t, filepath.Join(moduleDir(t, "k8s.io/controller-manager@v0.31.14"), "pkg", "leadermigration", "config", "config.go"))
	if !strings.Contains(last131, lenient) {
		t.Error("controller-manager v0.31.14 decodes strictly")
	}
	// Strict YAML decoding refuses a key given twice, lenient keeps the last.
	js := read(t, filepath.Join(moduleDir(t, "k8s.io/apimachinery@v0.32.6"), "pkg", "runtime", "serializer", "json", "json.go"))
	if !strings.Contains(js, "yaml.YAMLToJSONStrict(originalData)") || !strings.Contains(js, "kjson.UnmarshalStrict(data, into)") {
		t.Error("apimachinery v0.32.6: strict decoding no longer checks duplicate and unknown fields")
	}
}
