package nodeimage

import (
	"context"
	"path/filepath"
)

// Kwok is the kwok release scale rehearsals run, and KwokImage its image:
// the controller that keeps simulated nodes Ready and their pods running
// without kubelets. It is built only when a rehearsal asks for simulated
// nodes, never by `images build`'s defaults.
const (
	Kwok       = "0.8.0"
	KwokImage  = "handover.local/kwok:v" + Kwok
	kwokModule = "kwok-" + Kwok
)

// BuildKwok builds (or finds cached) the kwok image and loads it into
// Docker.
func (b *Builder) BuildKwok(ctx context.Context) error {
	bin, err := b.buildGo(ctx, goBuild{Name: kwokModule, ModuleDir: b.repoPath("clusters", "nodeimage", "modules", kwokModule),
		Packages: map[string]string{"kwok": "."}, LDFlags: "-s -w"})
	if err != nil {
		return err
	}
	tar, err := b.cachedImage(binaryImage([]string{KwokImage}, filepath.Join(bin, "kwok"), "/usr/local/bin/kwok"))
	if err != nil {
		return err
	}
	return b.dockerLoad(ctx, KwokImage, tar)
}
