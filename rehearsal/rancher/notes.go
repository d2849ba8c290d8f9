package rancher

import "fmt"

// Where is a value's place: its file, line and field path.
type Where struct {
	Source string
	Field  string
	Line   int
}

func (w Where) String() string {
	switch {
	case w.Field == "":
		return w.Source
	case w.Line == 0:
		return fmt.Sprintf("%s: %s", w.Source, w.Field)
	}
	return fmt.Sprintf("%s:%d: %s", w.Source, w.Line, w.Field)
}

// Note is what a field says that the rehearsal does not carry, or carries
// changed, and why.
type Note struct {
	At   Where
	Text string
}

func (n Note) String() string { return n.At.String() + ": " + n.Text }

// Value is a string read from a file, with its place.
type Value struct {
	Text string
	At   Where
}

// notes collects a file's notes.
type notes []Note

func (ns *notes) add(f field, format string, args ...any) {
	*ns = append(*ns, Note{At: f.at(), Text: fmt.Sprintf(format, args...)})
}
