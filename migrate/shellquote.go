package migrate

import "strings"

// shellJoin writes argv as one line a POSIX shell reads back as the same
// words, whatever they hold: what a plan prints is pasted into a terminal.
func shellJoin(argv ...string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

// shellQuote is s as one shell word: bare when it holds only characters no
// shell reads specially, else in single quotes, each single quote inside
// closing them, escaped, and opening them again.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, shellSafe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"
