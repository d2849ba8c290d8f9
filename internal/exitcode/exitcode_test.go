package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	base := errors.New("cluster create: docker: not answering")
	joined := errors.Join(errors.New("step 3 failed"), AsInfrastructure(base))
	for _, c := range []struct {
		name string
		err  error
		want Code
	}{
		{"none", nil, Green},
		{"unclassed", base, Red},
		{"bad input", AsBadInput(base), BadInput},
		{"wrapped again with context", fmt.Errorf("rehearsal: %w", AsInfrastructure(base)), Infrastructure},
		{"the nearest class wins", AsBadInput(AsInfrastructure(base)), Infrastructure},
		{"one of several", joined, Infrastructure},
	} {
		if got := Of(c.err); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// Classing keeps the message, and errors.Is still finds the cause.
func TestWrapKeepsTheError(t *testing.T) {
	base := errors.New("unknown field \"controlPlane\"")
	err := AsBadInput(base)
	if err.Error() != base.Error() || !errors.Is(err, base) {
		t.Fatalf("%q (is base: %v)", err, errors.Is(err, base))
	}
	if AsBadInput(nil) != nil {
		t.Fatal("nil classed is not nil")
	}
}

// ByKind classes an error by its cause, found however deep, and leaves
// any other as it was.
func TestByKind(t *testing.T) {
	noSuch := errors.New("no such cluster")
	taken := errors.New("cluster exists")
	for _, c := range []struct {
		name string
		err  error
		want Code
	}{
		{"the kind, wrapped", fmt.Errorf("opening: %w", noSuch), BadInput},
		{"another of the kinds", taken, BadInput},
		{"not of the kinds", errors.New("docker: not answering"), Red},
		{"classed nearer already", AsInfrastructure(fmt.Errorf("x: %w", noSuch)), Infrastructure},
		{"none", nil, Green},
	} {
		err := ByKind(BadInput, c.err, noSuch, taken)
		if got := Of(err); got != c.want || (c.err != nil && err.Error() != c.err.Error()) {
			t.Errorf("%s: %d (%v), want %d", c.name, got, err, c.want)
		}
	}
}
