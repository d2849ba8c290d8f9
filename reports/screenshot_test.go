package reports

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestHTMLRendersInChromium renders the sample report in headless
// Chromium and finds the timeline in the screenshot: pixels of the
// kube-controller-manager lanes, the cloud-controller-manager lanes and the
// highlighted violation.
func TestHTMLRendersInChromium(t *testing.T) {
	chromium := requireTool(t, "chromium", "chromium")
	dir := t.TempDir()
	page := filepath.Join(dir, HTMLFile)
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(f, sampleReport()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	shot := filepath.Join(dir, "report.png")
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1300,900", "--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	img := readPNG(t, shot)
	for name, c := range map[string]color.RGBA{"KCM lanes": rgb(ColorKCM), "CCM lanes": rgb(ColorCCM)} {
		if n := countNear(img, c, 10); n < 500 {
			t.Errorf("%s: %d pixels of %v in the screenshot, want a drawn lane", name, n, c)
		}
	}
	// The violation is a translucent red over the lanes: reddish pixels.
	if n := countWhere(img, func(r, g, b uint8) bool { return r > 200 && g < 190 && b < 190 && int(r)-int(g) > 40 }); n < 200 {
		t.Errorf("no highlighted violation in the screenshot (%d reddish pixels)", n)
	}
	if os.Getenv("HANDOVER_ARTIFACTS") != "" {
		_ = os.MkdirAll(os.Getenv("HANDOVER_ARTIFACTS"), 0o755)
		b, _ := os.ReadFile(shot)
		_ = os.WriteFile(filepath.Join(os.Getenv("HANDOVER_ARTIFACTS"), "sample-report.png"), b, 0o644)
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func rgb(hex string) color.RGBA {
	v, _ := strconv.ParseUint(hex[1:], 16, 32)
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

func countNear(img image.Image, c color.RGBA, tol int) int {
	return countWhere(img, func(r, g, b uint8) bool {
		return abs(int(r)-int(c.R)) <= tol && abs(int(g)-int(c.G)) <= tol && abs(int(b)-int(c.B)) <= tol
	})
}

func countWhere(img image.Image, ok func(r, g, b uint8) bool) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if ok(uint8(r>>8), uint8(g>>8), uint8(b>>8)) {
				n++
			}
		}
	}
	return n
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
