package waits

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestRegisterAndValidate(t *testing.T) {
	Register("waits_test", Wait{Name: "test-wait", Default: time.Second, Doc: "a test"})
	if Default("test-wait") != time.Second {
		t.Fatal("default not kept")
	}
	if err := Validate(map[string]time.Duration{"test-wait": 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	err := Validate(map[string]time.Duration{"no-such": time.Second, "test-wait": 0})
	if err == nil || !strings.Contains(err.Error(), `no interval "no-such"`) || !strings.Contains(err.Error(), "test-wait must be positive") {
		t.Fatalf("bad overrides: %v", err)
	}
	var owner string
	for _, w := range Table() {
		if w.Name == "test-wait" {
			owner = w.Owner
		}
	}
	if owner != "waits_test" {
		t.Fatalf("owner %q", owner)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a wait registered twice did not panic")
		}
	}()
	Register("again", Wait{Name: "test-wait", Default: time.Second})
}

// A run's overrides reach what waits under its context, and only that.
func TestOverridesTravelWithTheContext(t *testing.T) {
	Register("waits_test", Wait{Name: "ctx-wait", Default: time.Minute, Doc: "a test"})
	ctx := WithOverrides(context.Background(), map[string]time.Duration{"ctx-wait": time.Second})
	if Of(ctx, "ctx-wait") != time.Second || Of(context.Background(), "ctx-wait") != time.Minute {
		t.Fatalf("override %s, default %s", Of(ctx, "ctx-wait"), Of(context.Background(), "ctx-wait"))
	}
}

// An override has a range, printed in the help: from 1s to 1h.
func TestOverridesHaveARange(t *testing.T) {
	Register("waits_test", Wait{Name: "ranged-wait", Default: time.Minute, Doc: "a test"})
	for d, want := range map[time.Duration]string{
		-5 * time.Second:       "ranged-wait must be positive, not -5s",
		500 * time.Millisecond: "ranged-wait is 500ms, out of range: give from 1s to 1h0m0s",
		2562047 * time.Hour:    "ranged-wait is 2562047h0m0s, out of range",
	} {
		if err := Validate(map[string]time.Duration{"ranged-wait": d}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", d, err, want)
		}
	}
	for _, d := range []time.Duration{MinOverride, MaxOverride} {
		if err := Validate(map[string]time.Duration{"ranged-wait": d}); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
