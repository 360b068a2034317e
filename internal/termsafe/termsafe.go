package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String is s with every character that a terminal would act on rather
// than show made visible as a Go-style escape: ESC (so no CSI, OSC, DCS
// or other escape sequence reaches the terminal whole), every other C0
// control but tab and newline (BEL, backspace, carriage return: the
// overwrites of a line), DEL, the C1 controls U+0080-U+009F (a C1 CSI
// alone starts a sequence on some terminals), format characters (Cf: the
// bidi embeddings and overrides U+202A-U+202E and isolates U+2066-U+2069,
// zero-width characters, the BOM), the line and paragraph separators,
// and bytes that are not UTF-8 (a lone 0x9b is CSI to a terminal in an
// 8-bit mode). Tab and newline are kept: they move the cursor forward or
// down only, and multi-line messages stay readable. Printable text,
// including every non-ASCII letter, is returned unchanged, without a copy
// when there was nothing to change.
func String(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if c >= utf8.RuneSelf && !(r == utf8.RuneError && n == 1) && !acted(r) {
			i += n
			continue
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case acted(r):
			b.WriteString(escape(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// acted says whether a terminal acts on r (or it changes how the text
// around it reads) rather than drawing a glyph: the characters String
// escapes, apart from tab and newline.
func acted(r rune) bool {
	if r == '\t' || r == '\n' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// escape is the visible form of r: the short escapes people know for
// the controls that overwrite (\r, \b) or ring (\a), \x1b for ESC, \xNN
// for other C0 and C1 controls, \uNNNN beyond.
func escape(r rune) string {
	switch r {
	case '\r':
		return `\r`
	case '\b':
		return `\b`
	case '\a':
		return `\a`
	case '\f':
		return `\f`
	case '\v':
		return `\v`
	}
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
