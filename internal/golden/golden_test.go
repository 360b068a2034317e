package golden

import (
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	for _, tt := range []struct{ want, got, out string }{
		{"a\nb\nc", "a\nX\nc", "line 2:\n  want: b\n  got:  X"},
		{"a\nb", "a\nb\nc", "line 3:\n  want: \n  got:  c"},
		{"a\r\n", "a\n", "line 1:"},
	} {
		if got := FirstDiff([]byte(tt.want), []byte(tt.got)); !strings.HasPrefix(got, tt.out) {
			t.Errorf("FirstDiff(%q, %q) = %q, want prefix %q", tt.want, tt.got, got, tt.out)
		}
	}
}
