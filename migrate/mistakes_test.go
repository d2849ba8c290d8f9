package migrate

import (
	"slices"
	"strings"
	"testing"
)

// Each mistake shows in the plan, and the preflight lint catches exactly
// the ones a static look at the configurations can see.
func TestMistakesInPlanAndLint(t *testing.T) {
	caughtByLint := map[string]bool{
		MistakeCCMWithoutLM:      true,  // both sides are linted together: both would run the controllers
		MistakeNoLeaseRBAC:       false, // RBAC is a property of the cluster: the runtime SubjectAccessReview sees it
		MistakeN1KCMWithLM:       true,
		MistakeNoCCM:             false,
		MistakeLeaderNameDiffers: true,
		MistakeComponentTypo:     true,
		// the lint compares the managers' --cluster-name
		MistakeClusterNameDiffers: true,
		// the lint reads --controllers: the controller is handed to a
		// manager that does not start it
		MistakeCCMNoNodeLifecycle: true,
		MistakeCCMNoRoutes:        true,
		// a node's name is its kubelet's, not a manager's configuration
		MistakeN1Hostname:        false,
		MistakeRKENoMetaHostname: false,
		// a kubelet's flags are not a manager's configuration
		MistakeN1NoCredentials: false,
		// a DaemonSet beside the manager is not the manager's configuration
		MistakeNoNodeManager: false,
	}
	for _, m := range MistakeNames() {
		t.Run(m, func(t *testing.T) {
			s := mistakeSpec(m)
			b := planAndLint(t, s)
			if !strings.Contains(b.String(), "DELIBERATE MISTAKE: "+mistakes[m].what) {
				t.Errorf("the plan does not say what is done wrong:\n%s", b.String())
			}
			want, ok := caughtByLint[m]
			if !ok {
				t.Fatalf("no expectation for %s", m)
			}
			if got := s.Lint().Errors() > 0; got != want {
				t.Errorf("lint catches it: %t, want %t:\n%s", got, want, s.Lint())
			}
		})
	}
	misnamed := DefaultSpec(TaskDoc)
	misnamed.Mistake = MistakeClusterNameDiffers
	if pod := ccmStaticPod(misnamed, misnamed.setup()); !strings.Contains(pod, "--cluster-name="+misnamed.Cluster+misnamedSuffix+"\n") {
		t.Errorf("the CCM keeps the cluster's name:\n%s", pod)
	}
	byHostname := DefaultSpec(TaskDoc)
	byHostname.Mistake = MistakeN1Hostname
	if !byHostname.setup().N1ByHostname || DefaultSpec(TaskDoc).setup().N1ByHostname {
		t.Error("only the mistake joins N+1 control planes by their hostnames")
	}
	clean := DefaultSpec(TaskDoc)
	if clean.Lint().Errors() != 0 {
		t.Fatalf("the clean procedure has lint errors:\n%s", clean.Lint())
	}
	bad := DefaultSpec(RKE2)
	bad.Flavour, bad.Mistake = "aws", MistakeNoCCM
	if _, err := Build(bad); err == nil || !strings.Contains(err.Error(), "applies to the taskdoc procedure") {
		t.Errorf("a mistake on rke2: %v", err)
	}
	bad = DefaultSpec(TaskDoc)
	bad.Mistake = MistakeRKENoMetaHostname
	if _, err := Build(bad); err == nil || !strings.Contains(err.Error(), "applies to --procedure rke --flavour external-aws only") {
		t.Errorf("an rke mistake on taskdoc: %v", err)
	}
	bad = mistakeSpec(MistakeRKENoMetaHostname)
	bad.Flavour = "external"
	if _, err := Build(bad); err == nil || !strings.Contains(err.Error(), "applies to --procedure rke --flavour external-aws only") {
		t.Errorf("an rke external-aws mistake on rke external: %v", err)
	}
	if s := mistakeSpec(MistakeRKENoMetaHostname); s.SwitchKeepsNodeNames() || !DefaultSpec(RKE).SwitchKeepsNodeNames() {
		t.Error("only the mistake switches kubelets without their names")
	}
	// Rancher's Azure runbook raising the version brings N+1 control
	// planes: the note is on its switch, whose joins lack the plugin.
	raised := DefaultSpec(RKE2)
	raised.Flavour, raised.CloudProfile, raised.From, raised.To, raised.Mistake = "azure", "azure", "v1.29.15", "v1.30.14", MistakeN1NoCredentials
	if _, err := Build(raised); err != nil {
		t.Errorf("the credentials mistake on rke2 azure: %v", err)
	}
	if notes := raised.setup().Notes[switchKey]; len(notes) != 1 || !strings.Contains(notes[0].Body, mistakes[MistakeN1NoCredentials].what) {
		t.Errorf("the switch's notes: %v", notes)
	}
	raised.Variant.Rollback = true
	if _, err := Build(raised); err == nil {
		t.Error("the credentials mistake on rke2 azure's rollback was taken")
	}
	bad = DefaultSpec(RKE2)
	bad.Flavour, bad.Mistake = "aws", MistakeN1NoCredentials
	if _, err := Build(bad); err == nil {
		t.Error("the credentials mistake on rke2 aws was taken")
	}
	bad = DefaultSpec(TaskDoc)
	bad.Mistake = "typo"
	if _, err := Build(bad); err == nil || !strings.Contains(err.Error(), "use one of") {
		t.Errorf("an unknown mistake: %v", err)
	}
}

// The mistakes change a CCM with a configuration file and an N+1
// kube-controller-manager: a procedure that takes them must have both.
func TestMistakesOnlyWhereTheyApply(t *testing.T) {
	for _, r := range procedures {
		if r.Mistakes && (!r.Managers.NewKCM || r.Managers.Config == BuiltIn) {
			t.Errorf("%s takes mistakes but has no N+1 kube-controller-manager or no configuration file", r.Name)
		}
	}
	s := DefaultSpec(TaskDoc)
	s.Mistake = MistakeN1KCMWithLM
	st := s.setup()
	st.NewKCM.Config.LeaderName = "changed"
	if st.CCM.Config.LeaderName == "changed" {
		t.Error("the N+1 kube-controller-manager shares the CCM's configuration")
	}
}

// TestPredictMatchesTheNegativeCatalog: the lint's prediction for each
// mistake is what the negative rehearsals found (suites/negative_test.go),
// where it is a matter of configurations; RBAC, a missing manager, a
// cluster name and a crash after the procedure are not.
func TestPredictMatchesTheNegativeCatalog(t *testing.T) {
	all := []string{"service-lb-controller", "node-route-controller", "cloud-node-lifecycle-controller"}
	for _, c := range []struct {
		mistake, procedure string
		both, orphaned     []string
	}{
		{"", TaskDoc, nil, nil},
		{MistakeCCMWithoutLM, TaskDoc, all, nil},       // case 1: mutual-exclusion
		{MistakeLeaderNameDiffers, TaskDoc, all, nil},  // case 5: mutual-exclusion
		{MistakeComponentTypo, TaskDoc, nil, all},      // case 6: coverage-gap
		{"", DefaultConfig, all[:2], nil},              // suites/rehearsal_test.go default-config
		{MistakeClusterNameDiffers, TaskDoc, nil, nil}, // case 9: lb checks, not a controller's run
	} {
		s := DefaultSpec(c.procedure)
		s.Mistake = c.mistake
		p, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		got := p.Spec.Predict()
		if !slices.Equal(got.Both, c.both) || !slices.Equal(got.Orphaned, c.orphaned) || len(got.Unknown) > 0 {
			t.Errorf("%s %s: predicted %+v, want both %v orphaned %v", c.procedure, c.mistake, got, c.both, c.orphaned)
		}
	}
}

// A mistake in the cloud-controller-manager's manifest alone applies to an
// in-place upgrade too: each upgraded control plane's manifest carries it
// and its step's plan says so. One elsewhere (the N+1
// kube-controller-manager's flags, which an in-place upgrade edits its own
// way) is refused there, and none applies to a rollback.
func TestMistakesInPlace(t *testing.T) {
	s := DefaultSpec(TaskDoc)
	s.Variant.InPlace, s.Mistake = true, MistakeCCMWithoutLM
	p, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	var plan, manifest strings.Builder
	for _, st := range p.Steps {
		if strings.HasPrefix(st.Name, "upgrade-control-plane-") {
			for _, it := range st.Plan {
				plan.WriteString(it.Body + "\n")
				if it.Title == s.Provider().CCMStaticPodPath {
					manifest.WriteString(it.Body)
				}
			}
		}
	}
	if !strings.Contains(plan.String(), "DELIBERATE MISTAKE: "+mistakes[MistakeCCMWithoutLM].what) || manifest.Len() == 0 ||
		strings.Contains(manifest.String(), "--enable-leader-migration") {
		t.Errorf("the in-place upgrade's plan does not start the CCM without leader migration, saying so:\n%s", plan.String())
	}
	for _, bad := range []struct {
		mistake          string
		inPlace, rollbck bool
	}{{MistakeN1KCMWithLM, true, false}, {MistakeNoCCM, true, false}, {MistakeCCMWithoutLM, false, true}} {
		s := DefaultSpec(TaskDoc)
		s.Mistake, s.Variant.InPlace, s.Variant.Rollback = bad.mistake, bad.inPlace, bad.rollbck
		if _, err := Build(s); err == nil || !strings.Contains(err.Error(), "forward only") {
			t.Errorf("%s (in place %v, rollback %v): %v", bad.mistake, bad.inPlace, bad.rollbck, err)
		}
	}
}

// mistakeSpec is the default spec of the procedure a mistake applies to.
func mistakeSpec(m string) Spec {
	s := DefaultSpec(TaskDoc)
	if rb := mistakes[m].runbook; rb != (runbook{}) {
		s = DefaultSpec(rb.procedure)
		s.Flavour = rb.flavour
	}
	s.Mistake = m
	return s
}
