package remote

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// YAMLQuote writes s as a YAML single-quoted flow scalar: the one way a
// value enters a YAML document benchrig passes to another program (a
// CockroachDB node's --log configuration). In single quotes YAML takes
// every character literally except the quote, written twice; a line
// break would be folded into a space, so text with control characters
// (or that is not UTF-8) has no faithful quoting and is refused.
func YAMLQuote(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%q is not UTF-8 text", s)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\uFEFF' || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			return "", fmt.Errorf("%q has a control character, which YAML would not keep", s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'", nil
}
