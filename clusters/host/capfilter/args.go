package capfilter

import "strings"

// Invocation is what the wrapper needs to know about one runc call.
type Invocation struct {
	Command     string // runc subcommand, e.g. "create"
	Bundle      string // OCI bundle directory for create/run ("" = cwd)
	ProcessFile string // --process file for exec ("" = none)
}

// globalValueFlags are runc's global flags that take a separate value.
var globalValueFlags = map[string]bool{
	"--root": true, "--log": true, "--log-format": true, "--criu": true, "--rootless": true,
}

// ParseArgs finds the subcommand and the spec files a runc argv refers to.
func ParseArgs(args []string) Invocation {
	var inv Invocation
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			inv.Command = a
			break
		}
		if globalValueFlags[a] {
			i++
		}
	}
	for i++; i < len(args); i++ {
		switch name, value, hasValue := strings.Cut(args[i], "="); {
		case (inv.Command == "create" || inv.Command == "run") && (name == "--bundle" || name == "-b"):
			inv.Bundle, i = flagValue(args, i, value, hasValue)
		case inv.Command == "exec" && (name == "--process" || name == "-p"):
			inv.ProcessFile, i = flagValue(args, i, value, hasValue)
		}
	}
	return inv
}

func flagValue(args []string, i int, value string, hasValue bool) (string, int) {
	if hasValue {
		return value, i
	}
	if i+1 < len(args) {
		return args[i+1], i + 1
	}
	return "", i
}
