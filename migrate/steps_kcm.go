package migrate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// WriteConfigSteps put the version-N kube-controller-manager's
// configuration on every version-N control plane: none when it uses the
// built-in default.
func WriteConfigSteps(s Spec) []Step {
	cfg := s.setup().KCM.Config
	if cfg == nil {
		return nil
	}
	note := s.configNamesNote()
	if s.KCMConfig != nil {
		note = "The kube-controller-manager's configuration as given (" + s.KCMConfig.Path + "), byte for byte; the preflight lint says what " + s.From + " makes of it."
	}
	return []Step{writeConfigStep(s, cfg, note)}
}

// writeConfigStep puts the initial configuration (controllers owned by
// kube-controller-manager) on every version-N control plane.
func writeConfigStep(s Spec, cfg *lmconfig.Config, note string) Step {
	body := cfg.YAML()
	return Step{
		Name:  "write-initial-config",
		Title: "Write the initial LeaderMigrationConfiguration to " + LMConfigPath + " on every control plane",
		Plan:  []Item{{Kind: File, Title: LMConfigPath, Body: body}, {Kind: Note, Body: note}},
		Done: func(ctx context.Context, e *Env) (bool, error) {
			return e.everyNode(ctx, s.NSide(), func(node string) (bool, error) {
				got, err := e.Cluster.ReadFile(ctx, node, LMConfigPath)
				return err == nil && got == body, nil
			})
		},
		Do: func(ctx context.Context, e *Env) error {
			cps, err := e.controlPlanes(ctx)
			if err != nil {
				return err
			}
			for _, cp := range onSide(cps, s.NSide()) {
				if err := e.Cluster.WriteFile(ctx, cp.Name, LMConfigPath, body); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// everyNode is true when ok holds on every control plane of the side, and
// vacuously when none is left (a finished procedure re-run skips the steps
// on nodes it has since replaced).
func (e *Env) everyNode(ctx context.Context, d side, ok func(node string) (bool, error)) (bool, error) {
	cps, err := e.controlPlanes(ctx)
	if err != nil {
		return false, err
	}
	for _, cp := range onSide(cps, d) {
		if good, err := ok(cp.Name); err != nil || !good {
			return false, err
		}
	}
	return true, nil
}

// kcmFile: the version-N kube-controller-manager reads a configuration
// file (otherwise its built-in default).
func (s Spec) KCMFile() bool { return s.setup().KCM.Config != nil }

// EnableLM turns leader migration on in a manager's manifest, with the
// user's flags for the manager.
func EnableLM(withFile bool, args []string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Command = setFlag(c.Command, "enable-leader-migration", "")
		if withFile {
			c.Command = setFlag(c.Command, "leader-migration-config", LMConfigPath)
			hostFileMount(p, lmVolume, LMConfigPath)
		}
		c.Command = cmdline.Merge(c.Command, args)
	}
}

// disableLM removes leader migration from a manager's manifest.
func disableLM(p *corev1.Pod) {
	c := &p.Spec.Containers[0]
	c.Command = removeFlag(removeFlag(c.Command, "enable-leader-migration"), "leader-migration-config")
	removeMount(p, lmVolume)
}

// RollStep edits one component's manifest on every control plane of a
// side, one node at a time, waiting for each to run the new manifest
// before touching the next: a rolling restart as kubeadm upgrade does, but
// with the lease holders last, so the controllers change hands once rather
// than once per restarted leader.
func RollStep(s Spec, name, title string, d side, component string, edit func(*corev1.Pod), plan []Item, settle func(context.Context, *Env) (bool, error)) Step {
	converged := func(ctx context.Context, e *Env) (bool, error) {
		return e.everyNode(ctx, d, func(node string) (bool, error) {
			changed, err := e.wouldChange(ctx, node, component, edit)
			if err != nil || changed {
				return false, err
			}
			return e.staticPodRunning(ctx, node, component, time.Time{})
		})
	}
	return Step{
		Name: name, Title: title, Plan: plan,
		// Done is the durable effect only: whom the controllers settle on
		// changes as later steps run.
		Done: converged,
		Do: func(ctx context.Context, e *Env) error {
			cps, err := e.controlPlanes(ctx)
			if err != nil {
				return err
			}
			for _, cp := range e.leaderLast(ctx, onSide(cps, d)) {
				if err := e.roll(ctx, cp.Name, component, edit); err != nil {
					return err
				}
			}
			return nil
		},
		Wait: Wait{Name: "every " + component + " runs its new manifest and the controllers settle", Timeout: s.Intervals.Of(IntervalManagerRestart),
			Until: func(ctx context.Context, e *Env) (bool, error) {
				ok, err := converged(ctx, e)
				if !ok || err != nil || settle == nil {
					return ok, err
				}
				return settle(ctx, e)
			}},
	}
}

func (e *Env) wouldChange(ctx context.Context, node, component string, edit func(*corev1.Pod)) (bool, error) {
	pod, err := e.readStaticPod(ctx, node, component)
	if err != nil {
		return false, err
	}
	before := pod.DeepCopy()
	edit(pod)
	return !sameArgs(before.Spec.Containers[0].Command, pod.Spec.Containers[0].Command) ||
		len(before.Spec.Volumes) != len(pod.Spec.Volumes) || before.Spec.Containers[0].Image != pod.Spec.Containers[0].Image, nil
}

// roll rewrites one node's manifest and waits until the kubelet runs it.
func (e *Env) roll(ctx context.Context, node, component string, edit func(*corev1.Pod)) error {
	since := time.Now()
	wrote, err := e.editStaticPod(ctx, node, component, edit)
	if err != nil {
		return err
	}
	if wrote {
		e.Logger.V(0).Infof("   rewrote %s on %s", component, node)
	}
	limit := e.Spec.Intervals.Of(IntervalManagerRestart)
	wctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if !wrote {
		since = time.Time{}
	}
	if err := e.poll(wctx, func(ctx context.Context, e *Env) (bool, error) {
		return e.staticPodRunning(ctx, node, component, since)
	}); err != nil {
		return fmt.Errorf("%s on %s did not come back with its new manifest within %s: %w", component, node, limit, err)
	}
	return nil
}

// FlagsPlan prints the flags a step adds or removes.
func FlagsPlan(component, verb string, flags ...string) Item {
	return Item{Kind: Command, Title: component + " manifest: " + verb,
		Body: "# /etc/kubernetes/manifests/" + component + ".yaml, spec.containers[0].command:\n" + indentFlags(flags)}
}

func indentFlags(flags []string) string {
	var b strings.Builder
	for _, f := range flags {
		b.WriteString("- " + yamlItem(f) + "\n")
	}
	return b.String()
}

// yamlItem is a flag as a YAML list item reads it back: bare when YAML
// takes it as written, else double-quoted (a newline or " #" in a value
// would otherwise end the item or start a comment).
func yamlItem(f string) string {
	if b, err := yaml.Marshal(f); err == nil && string(b) == f+"\n" {
		return f
	}
	return strconv.Quote(f)
}

// KCMControllers are the version-N kube-controller-managers' --controllers
// as the Setup has them during the procedure ("" leaves kubeadm's).
func (s Spec) KCMControllers() string { return s.setup().KCM.Controllers }

// SetControllers sets a manager's --controllers, with the user's flags for
// the manager (which win).
func SetControllers(value string, args []string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Command = cmdline.Merge(setFlag(c.Command, "controllers", value), args)
	}
}
