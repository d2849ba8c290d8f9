package awsapi

import (
	"fmt"
	"strconv"
	"time"
)

// Timestamp formats by the SDK's timestampFormat tag
// (private/protocol/timestamp.go); iso8601 when a field names none.
const (
	iso8601 = "2006-01-02T15:04:05.999999999Z"
	rfc822  = "Mon, 02 Jan 2006 15:04:05 GMT"
)

func formatTime(t time.Time, format string) string {
	switch format {
	case "rfc822":
		return t.UTC().Format(rfc822)
	case "unixTimestamp":
		return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', -1, 64)
	}
	return t.UTC().Format(iso8601)
}

func parseTime(text, format string) (time.Time, error) {
	switch format {
	case "rfc822":
		return time.Parse(rfc822, text)
	case "unixTimestamp":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("not a unix timestamp: %w", err)
		}
		return time.Unix(0, int64(f*1e9)).UTC(), nil
	}
	return time.Parse(time.RFC3339Nano, text)
}
