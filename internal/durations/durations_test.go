package durations

import (
	"strings"
	"testing"
	"time"
)

func TestRange(t *testing.T) {
	r := Range{Min: time.Second, Max: 30 * time.Minute}
	for _, tc := range []struct {
		in, want string
	}{
		{"1s", ""}, {"30m", ""}, {"90s", ""},
		{"-5s", "-5s is negative: give from 1s to 30m"},
		{"500ms", "500ms is out of range: give from 1s to 30m"},
		{"2562047h", "2562047h is out of range: give from 1s to 30m"},
		{"876000h", "876000h is out of range"},
		{"soon", `"soon" is no duration: give from 1s to 30m, such as 90s or 5m`},
	} {
		_, err := r.Parse(tc.in)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0s", 90 * time.Second: "1m30s", time.Hour: "1h", 168 * time.Hour: "168h", 1500 * time.Millisecond: "1.5s"} {
		if got := Short(d); got != want {
			t.Errorf("Short(%s) = %q, want %q", d, got, want)
		}
	}
}
