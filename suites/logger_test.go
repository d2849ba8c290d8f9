package suites_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	"sigs.k8s.io/kind/pkg/log"
)

// ginkgoLogger writes a rehearsal's progress to the spec's output.
type ginkgoLogger struct{}

var _ log.Logger = ginkgoLogger{}

func (ginkgoLogger) Warn(m string) { GinkgoWriter.Println("WARN " + m) }
func (ginkgoLogger) Warnf(f string, a ...interface{}) {
	GinkgoWriter.Println("WARN " + fmt.Sprintf(f, a...))
}
func (ginkgoLogger) Error(m string) { GinkgoWriter.Println("ERROR " + m) }
func (ginkgoLogger) Errorf(f string, a ...interface{}) {
	GinkgoWriter.Println("ERROR " + fmt.Sprintf(f, a...))
}
func (l ginkgoLogger) V(v log.Level) log.InfoLogger {
	if v > 0 {
		return log.NoopInfoLogger{}
	}
	return l
}
func (ginkgoLogger) Info(m string)                    { GinkgoWriter.Println(m) }
func (ginkgoLogger) Infof(f string, a ...interface{}) { GinkgoWriter.Println(fmt.Sprintf(f, a...)) }
func (ginkgoLogger) Enabled() bool                    { return true }
