package rehearsal

import (
	"fmt"
	"strings"
	"time"

	"github.com/handover-sh/handover/internal/durations"
	"github.com/handover-sh/handover/waits"
)

// fileDurations are the ranges of a rehearsal file's durations (and of the
// flags that set them). A rehearsal runs for minutes, its cluster and
// runner held meanwhile: nothing in it is worth half an hour's wait.
var fileDurations = map[string]durations.Range{
	// The observers, load and cluster keep running meanwhile.
	"observeAfter": {Min: 0, Max: 30 * time.Minute},
	// After the step starts; the step itself is bounded by its waits.
	"faults.delay": {Min: 0, Max: 30 * time.Minute},
	// A node stopped, the cloud throttled or out: far beyond any lease.
	"faults.duration": {Min: 0, Max: 30 * time.Minute},
	// 0: none join; below 1s the fleet's registrations are a flood.
	"scale.joinEvery": {Min: 0, Max: time.Hour},
}

// fileDuration reads the rehearsal file's field (named as in
// fileDurations) within its range; "" is 0, the field not given.
func fileDuration(field, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	r, ok := fileDurations[field]
	if !ok {
		panic("rehearsal: no range for " + field)
	}
	d, err := r.Parse(v)
	if err != nil {
		return 0, fmt.Errorf("%s %w", field, err)
	}
	return d, nil
}

// DurationHelp lists the rehearsal file's durations with their ranges,
// and the intervals' range, one per line.
func DurationHelp() string {
	var b strings.Builder
	for _, f := range []string{"observeAfter", "faults.delay", "faults.duration", "scale.joinEvery"} {
		fmt.Fprintf(&b, "  %-16s %s\n", f, fileDurations[f])
	}
	fmt.Fprintf(&b, "  %-16s each %s", "intervals", durations.Range{Min: waits.MinOverride, Max: waits.MaxOverride})
	return b.String()
}
