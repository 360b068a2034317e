package plan

import (
	"fmt"
	"math"
	"regexp"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// badText says what is wrong with a string value that no field may hold:
// invalid UTF-8, control characters (a NUL ends a C string, an escape
// sequence rewrites the terminal a dry run is printed on, a newline
// starts a new line of a conf file) and characters that change what is
// shown without being seen (bidi overrides reorder the dry run's text,
// zero-width characters make two different names look the same). Only
// free text (the description) may span lines. It is the one check of
// plan text; every string field and setting value goes through it.
func badText(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for _, r := range s {
		if (r == '\n' || r == '\t') && multiline {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("control character %U is not allowed", r)
		}
		if invisible(r) {
			return fmt.Sprintf("invisible or text-direction character %U is not allowed (what the dry run shows must be what runs)", r)
		}
	}
	return ""
}

// invisible: Unicode's format characters (Cf: bidi embeddings, overrides
// and isolates U+202A-U+202E and U+2066-U+2069, zero-width U+200B-U+200F,
// U+2060, U+FEFF, the soft hyphen U+00AD, tag characters), private-use
// characters, and the characters outside Cf that render as nothing
// (combining grapheme joiner, Hangul fillers, variation selectors).
func invisible(r rune) bool {
	switch {
	case unicode.In(r, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp):
		return true
	case r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x3164, r == 0xffa0,
		r >= 0x180b && r <= 0x180f, r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef,
		r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}

// stringLimit is the longest value the string field at where may hold.
func stringLimit(where string) int {
	if where == "description" {
		return maxDescriptionLen
	}
	return maxStringLen
}

// decimalInt is how a whole number is written in a plan: YAML 1.1 reads
// 022 and 0_1_0_2_4 as octal (18, 532), 0x1F as hex, and +5, 1_000 are
// easily misread; a plan says what it means in plain decimal.
var (
	decimalInt   = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	decimalFloat = regexp.MustCompile(`^-?(0|[1-9][0-9]*)?(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
)

// notDecimal says what is wrong with a number not written in plain
// decimal, and what YAML would have read.
func notDecimal(n *yaml.Node) string {
	re := decimalInt
	if n.Tag == "!!float" {
		re = decimalFloat
	}
	if re.MatchString(n.Value) && n.Value != "" && n.Value != "-" {
		return ""
	}
	var read any
	if n.Decode(&read) == nil {
		if f, ok := read.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return fmt.Sprintf("want a finite number, got %q", n.Value)
		}
		return fmt.Sprintf("%q is not a plain decimal number (YAML reads it as %v); write it in decimal digits", n.Value, read)
	}
	return fmt.Sprintf("%q is not a plain decimal number; write it in decimal digits", n.Value)
}
