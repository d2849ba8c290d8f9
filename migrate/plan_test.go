package migrate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden plans")

// planCases are every procedure and variant `handover plan` prints.
var planCases = map[string]func(*Spec){
	"taskdoc":            func(*Spec) {},
	"taskdoc-in-place":   func(s *Spec) { s.Variant.InPlace = true },
	"taskdoc-rollback":   func(s *Spec) { s.Variant.Rollback = true },
	"taskdoc-disable":    func(s *Spec) { s.Variant.Disable = true },
	"rke2-aws":           func(s *Spec) { s.Procedure, s.Flavour = RKE2, "aws" },
	"rke2-azure-disable": func(s *Spec) { s.Procedure, s.Flavour, s.Variant.Disable = RKE2, "azure", true },
	"rke-external":       func(s *Spec) { s.Procedure, s.Flavour = RKE, "external" },
	"rke-external-aws":   func(s *Spec) { s.Procedure, s.Flavour = RKE, "external-aws" },
	"default-config":     func(s *Spec) { s.Procedure = DefaultConfig },
	"node-ipam":          func(s *Spec) { s.Procedure = NodeIPAM },
	"stop-start":         func(s *Spec) { s.Procedure = StopStart },
	"controllers-flag":   func(s *Spec) { s.Procedure = ControllersFlag },
	"taskdoc-verbatim": func(s *Spec) {
		if err := s.SetUserConfigs([]string{"kcm=../examples/taskdoc-verbatim/kcm.yaml", "ccm=../examples/taskdoc-verbatim/ccm.yaml"}); err != nil {
			panic(err)
		}
	},
	"taskdoc-kcm-default": func(s *Spec) {
		if err := s.SetUserConfigs([]string{"kcm=default"}); err != nil {
			panic(err)
		}
	},
	// One version: the switch raises nothing (these goldens were written
	// before it could, and must not change).
	"rke2-aws-one-version":     func(s *Spec) { s.Procedure, s.Flavour, s.To = RKE2, "aws", s.From },
	"rke-external-one-version": func(s *Spec) { s.Procedure, s.Flavour, s.To = RKE, "external", s.From },
	// Across the 1.28 rename each manager reads its own names.
	"rke2-azure-v1.27": func(s *Spec) { s.Procedure, s.Flavour, s.From, s.To = RKE2, "azure", "v1.27.4", "v1.28.15" },
	// The join of an N+1 control plane with ECR's credential provider.
	"taskdoc-aws-v1.26": func(s *Spec) {
		s.From, s.To = "v1.26.13", "v1.27.4"
		mustProfile(s, "aws")
	},
	"taskdoc-rollback-disable": func(s *Spec) { s.Variant.Rollback, s.Variant.Disable = true, true },
	// The AWS path, 1.26 to 1.27: the runbooks' built-in default as
	// written (the managers know only the short names it lists), the
	// switch raising the version, ECR's credential provider on the
	// joining kubelets.
	"rke2-aws-v1.26": func(s *Spec) {
		s.Procedure, s.Flavour, s.From, s.To = RKE2, "aws", "v1.26.13", "v1.27.4"
		mustProfile(s, "aws")
	},
	"rke-external-aws-v1.26": func(s *Spec) {
		s.Procedure, s.Flavour, s.From, s.To = RKE, "external-aws", "v1.26.13", "v1.27.4"
		mustProfile(s, "aws")
	},
	"default-config-v1.26": func(s *Spec) { s.Procedure, s.From, s.To = DefaultConfig, "v1.26.13", "v1.27.4" },
	"rke2-user-file": func(s *Spec) {
		s.Procedure = RKE2
		if err := s.SetUserConfigs([]string{"kcm=../examples/taskdoc-verbatim/kcm.yaml", "ccm=default"}); err != nil {
			panic(err)
		}
	},
}

func mustProfile(s *Spec, provider string) {
	if err := s.SetCloudProfile(provider); err != nil {
		panic(err)
	}
}

func TestPlanGolden(t *testing.T) {
	for name, tweak := range planCases {
		t.Run(name, func(t *testing.T) {
			s := DefaultSpec(TaskDoc)
			tweak(&s)
			matchGolden(t, name, planAndLint(t, s))
		})
	}
}

// planAndLint is what `handover plan` prints for s.
func planAndLint(t *testing.T, s Spec) *bytes.Buffer {
	t.Helper()
	p, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WritePlan(&got, p, s); err != nil {
		t.Fatal(err)
	}
	got.WriteString("\n## preflight lint\n\n" + s.Lint().String())
	return &got
}

// matchGolden compares got with testdata/plan/NAME.golden (-update writes it).
func matchGolden(t *testing.T, name string, got *bytes.Buffer) {
	t.Helper()
	path := filepath.Join("testdata", "plan", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./migrate -run Golden -update)", err)
	}
	if got.String() != string(want) {
		t.Errorf("%s differs from %s (rerun with -update after checking the change):\n%s", name, path, firstDiff(string(want), got.String()))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

// The plan is the contract with an operator: check the facts it must carry.
func TestPlanContent(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    func(*Spec)
		must []string
		not  []string
	}{
		{"taskdoc", func(*Spec) {}, []string{"name: node-route-controller", "component: kube-controller-manager", "component: cloud-controller-manager",
			"--enable-leader-migration", "--leader-migration-config=/etc/leadermigration.conf", "add-n1-control-plane-3", "remove-n-control-plane-3",
			"verify-controllers-in-ccm", "resourceNames\":[\"cloud-provider-extraction-migration\"]"},
			[]string{"- --feature-gates=ControllerManagerLeaderMigration", "name: route\n"}},
		{"rollback", func(s *Spec) { s.Variant.Rollback = true }, []string{"restore-n-cluster-configuration", "add-n-control-plane-1", "remove-n1-control-plane-3", "verify-controllers-in-kcm"}, nil},
		{"rke2 azure", func(s *Spec) { s.Procedure, s.Flavour = RKE2, "azure" }, []string{"machineSelectorConfig", "kube-controller-manager-arg", "cloud-provider-name: external", "kind: Deployment", "kubectl cordon", "kubectl uncordon", "rollout status deployment"}, nil},
		{"rke external-aws", func(s *Spec) { s.Procedure, s.Flavour = RKE, "external-aws" }, []string{"extra_args", "name: external-aws", "useInstanceMetadataHostname: true", "rke up", "kind: DaemonSet"}, []string{"uncordon-control-planes"}},
		{"default-config", func(s *Spec) { s.Procedure = DefaultConfig }, []string{"- --enable-leader-migration\n", "built-in default"}, []string{"--leader-migration-config="}},
		// No leader migration anywhere: no grant, no flags, no file.
		{"stop-start", func(s *Spec) { s.Procedure = StopStart }, []string{"cloud-provider-name: external", "kind: DaemonSet", "without leader migration", "no leader migration in this procedure"},
			[]string{"leader-migration", "grant-migration-lease", "leadermigration.conf"}},
		{"controllers-flag", func(s *Spec) { s.Procedure = ControllersFlag }, []string{"--controllers=*,bootstrapsigner,tokencleaner,-cloud-node-lifecycle,-route,-service", "kind: Deployment", "kubeone migrate to-ccm-csi --complete"},
			[]string{"leader-migration", "grant-migration-lease", "leadermigration.conf"}},
	} {
		s := DefaultSpec(TaskDoc)
		tc.s(&s)
		p, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_ = WritePlan(&b, p, s)
		for _, m := range tc.must {
			if !strings.Contains(b.String(), m) {
				t.Errorf("%s: plan lacks %q", tc.name, m)
			}
		}
		for _, m := range tc.not {
			if strings.Contains(b.String(), m) {
				t.Errorf("%s: plan must not contain %q", tc.name, m)
			}
		}
	}
}
