package result

import (
	"strings"
	"testing"
)

// FuzzPlainReason: a refusal's reason, which may quote a host's bytes,
// never carries markup, a control character or an escape sequence, and
// stays short.
func FuzzPlainReason(f *testing.F) {
	f.Add("line 1: json: unknown field \"<img src=x onerror=alert(1)>\"")
	f.Add("\x1b]8;;http://x\x07link\x1b[2J\u202e|*_`[]")
	f.Fuzz(func(t *testing.T, s string) {
		p := plainReason(s)
		if strings.ContainsAny(p, "<>&\"'`*_[]|\\\x1b\r\n\t\x7f") || len(p) > 303 {
			t.Errorf("plainReason(%q) = %q", s, p)
		}
		for _, c := range p {
			if c < 0x20 || c > 0x7e {
				t.Errorf("plainReason(%q) keeps %U", s, c)
			}
		}
	})
}
