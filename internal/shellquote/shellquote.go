package shellquote

import "strings"

// Quote returns s as one word for a POSIX shell. Words made only of
// characters no shell treats specially are left bare so dry-run output
// reads like the recipes; anything else is single-quoted, each quote in s
// closing the quoted run, escaped with a backslash and reopening it. The
// empty string is a pair of single quotes.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if isSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-_./:,=@%+", c) >= 0:
			// '=' is safe in a word (assignments are only recognised
			// before the command name, and Quote never produces one there
			// except through remote.ShellJoin's explicit env handling).
			// '%' and '+' are not special in POSIX sh.
		default:
			return false
		}
	}
	return true
}
