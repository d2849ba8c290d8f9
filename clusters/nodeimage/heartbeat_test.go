package nodeimage

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/log"
)

// lines is a logger that keeps what it is told.
type lines struct {
	log.NoopLogger
	mu  sync.Mutex
	out []string
}

func (l *lines) V(log.Level) log.InfoLogger { return l }
func (l *lines) Info(m string)              { l.Infof("%s", m) }
func (l *lines) Infof(f string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out = append(l.out, fmt.Sprintf(f, a...))
}
func (l *lines) Enabled() bool { return true }

// A long step says it is still at work until it ends, and not after.
func TestLongStepsSayTheyAreAtWork(t *testing.T) {
	defer func(d time.Duration) { heartbeatEvery = d }(heartbeatEvery)
	heartbeatEvery = 10 * time.Millisecond
	l := &lines{}
	b := &Builder{Logger: l}
	if err := b.step("Building x", func() error { time.Sleep(35 * time.Millisecond); return nil }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	l.mu.Lock()
	defer l.mu.Unlock()
	beats := 0
	for _, s := range l.out {
		if strings.HasPrefix(s, "   … Building x: ") {
			beats++
		}
	}
	last := l.out[len(l.out)-1]
	if beats < 2 || !strings.HasPrefix(last, " ✓ Building x") {
		t.Errorf("lines %q: want two beats or more, then the step's end last", l.out)
	}
}
