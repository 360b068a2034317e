package termsafe

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "tpmC 12.5 on db1", "tpmC 12.5 on db1"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"letters of any script", "naïve Ωμέγα 東京 🙂", "naïve Ωμέγα 東京 🙂"},
		{"replacement character as text", "a\uFFFDb", "a\uFFFDb"},
		{"CSI colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"CSI erase screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"OSC title, BEL-terminated", "\x1b]0;pwned\a", `\x1b]0;pwned\a`},
		{"OSC 52 clipboard, ST-terminated", "\x1b]52;c;cm0gLXJmIC8K\x1b\\", `\x1b]52;c;cm0gLXJmIC8K\x1b\`},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\ok\x1b]8;;\x1b\\", `\x1b]8;;http://evil\x1b\ok\x1b]8;;\x1b\`},
		{"DCS", "\x1bP1$r\x1b\\", `\x1bP1$r\x1b\`},
		{"C1 CSI as a rune", "\u009b31mred", `\x9b31mred`},
		{"C1 OSC as a rune", "\u009d0;title\u009c", `\x9d0;title\x9c`},
		{"C1 CSI as a lone byte", "\x9b31mred", `\x9b31mred`},
		{"other invalid UTF-8", "a\xff\xfeb\xc3", `a\xff\xfeb\xc3`},
		{"carriage return overwrite", "rm -rf /\rls -l   ", `rm -rf /\rls -l   `},
		{"backspace overwrite", "safe\b\b\b\bevil", `safe\b\b\b\bevil`},
		{"BEL, form feed, vertical tab, NUL, DEL", "\a\f\v\x00\x7f", `\a\f\v\x00\x7f`},
		{"bidi overrides", "a\u202Ab\u202Bc\u202Cd\u202De\u202Ef", `a\u202ab\u202bc\u202cd\u202de\u202ef`},
		{"bidi isolates", "\u2066x\u2067y\u2068z\u2069", `\u2066x\u2067y\u2068z\u2069`},
		{"zero-width and BOM", "a\u200Bb\u200Dc\uFEFFd", `a\u200bb\u200dc\ufeffd`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"escape after unicode", "é\x1b[1m", `é\x1b[1m`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestStringNoCopy: printable text is returned as it is (hot path: every
// line of host output the console shows).
func TestStringNoCopy(t *testing.T) {
	s := strings.Repeat("node-01 | tpmC 1234.5 ütf\t", 10)
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Errorf("String of printable text allocates %.0f times", n)
	}
}

// safe says whether s can reach a terminal: valid UTF-8 with no character
// a terminal acts on but tab and newline.
func safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\t' || r == '\n' {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return false
		}
	}
	return true
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31mx", "\x9b", "\u202e", "a\rb", "é\xff", "\x1b]52;c;x\a", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if !safe(got) {
			t.Fatalf("String(%q) = %q still holds a control", s, got)
		}
		if safe(s) && got != s {
			t.Fatalf("String(%q) = %q changed safe text", s, got)
		}
		if again := String(got); again != got {
			t.Fatalf("String is not idempotent: %q, then %q", got, again)
		}
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("String(%q) = %q changed the lines", s, got)
		}
	})
}
