package nodeimage

import (
	"fmt"
	"os"
	"path/filepath"
)

// ManagerBinary is a Kubernetes binary of a version (kube-controller-manager,
// cloud-controller-manager) from the image cache: the newest finished build
// of that version. Any build of a version has that version's flags, which
// is what it is asked about.
func ManagerBinary(cacheDir, kubernetes, component string) (string, error) {
	dirs, _ := filepath.Glob(filepath.Join(cacheDir, "bin", "kubernetes-"+kubernetes+"-*", ".done"))
	best, bestTime := "", int64(0)
	for _, done := range dirs {
		st, err := os.Stat(done)
		if err == nil && st.ModTime().UnixNano() > bestTime {
			best, bestTime = filepath.Join(filepath.Dir(done), component), st.ModTime().UnixNano()
		}
	}
	if best == "" {
		return "", fmt.Errorf("no %s %s in the image cache %s: build it with `handover images build %s`", component, kubernetes, cacheDir, kubernetes)
	}
	if _, err := os.Stat(best); err != nil {
		return "", fmt.Errorf("%s %s: %w", component, kubernetes, err)
	}
	return best, nil
}
