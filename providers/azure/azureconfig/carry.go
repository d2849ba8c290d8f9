package azureconfig

import (
	"maps"
	"slices"
)

// Left is a field a rehearsal runs without, its value, and why.
type Left struct{ Name, Value, Why string }

// unknownWhy is why a field handover does not know stays behind: it
// cannot tell whether the simulated cloud serves what the field changes.
const unknownWhy = "handover does not know what it changes on the simulated cloud, so the rehearsal runs the provider's default"

// Carry splits f's fields into those a rehearsal runs with (by their
// names in fields, in the file's name order, each value as JSON) and those
// it leaves, with why. A secret's value is never shown.
func Carry(f File) (vars [][2]string, left []Left) {
	for _, name := range slices.Sorted(maps.Keys(f.Set)) {
		v := string(f.Set[name])
		fd, ok := known(name)
		switch {
		case !ok:
			left = append(left, Left{name, v, unknownWhy})
		case fd.why != "":
			if secret[fd.name] {
				v = "(not shown)"
			}
			left = append(left, Left{name, v, fd.why})
		default:
			vars = append(vars, [2]string{fd.name, v})
		}
	}
	return vars, left
}
