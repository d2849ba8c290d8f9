package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// maxLine bounds one event; observers never write anything near it.
const maxLine = 1 << 20

// Read parses a timeline. Blank lines are allowed; anything else that is not
// an event is an error naming its line.
func Read(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	var out []Event
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := parse(line)
		if err != nil {
			return out, fmt.Errorf("timeline line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading timeline after line %d: %w", len(out), err)
	}
	return out, nil
}

func parse(line []byte) (Event, error) {
	var e Event
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, err
	}
	if dec.More() {
		return e, fmt.Errorf("more than one JSON value on the line")
	}
	switch {
	case e.Time.IsZero():
		return e, fmt.Errorf("event has no time")
	case e.Kind == "":
		return e, fmt.Errorf("event has no kind")
	case e.Source == "":
		return e, fmt.Errorf("event has no source")
	}
	return e, nil
}

// ReadFile reads the timeline at path.
func ReadFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}
