package remote

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// yamlRoundTrip parses the quoted value back with a real YAML parser,
// inside a flow mapping as a node's --log configuration has it.
func yamlRoundTrip(t *testing.T, s string) {
	t.Helper()
	q, err := YAMLQuote(s)
	if err != nil {
		return
	}
	var doc map[string]map[string]string
	text := "file-defaults: {dir: " + q + ", exit-on-error: false}"
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("%q: %s does not parse: %v", s, text, err)
	}
	if got := doc["file-defaults"]["dir"]; got != s {
		t.Fatalf("%q: parsed back as %q from %s", s, got, text)
	}
	if len(doc["file-defaults"]) != 2 {
		t.Fatalf("%q: the value changed the mapping: %v", s, doc)
	}
}

// TestYAMLQuote: values with YAML's special characters come back whole
// from a real parser; values YAML cannot keep are refused.
func TestYAMLQuote(t *testing.T) {
	for _, s := range []string{"/home/ubuntu/benchrig/logs", "", "it's", "''", "a, b: c}", "{x: y}", "#not a comment", "- item",
		"&anchor *alias !tag", "%25 @ `", "\\n", "ünïcode/日本", "  spaced  "} {
		if _, err := YAMLQuote(s); err != nil {
			t.Errorf("%q refused: %v", s, err)
		}
		yamlRoundTrip(t, s)
	}
	for _, s := range []string{"a\nb", "a\rb", "tab\there", "\x00", "bom\uFEFF", "ls\u2028", "\xff"} {
		if q, err := YAMLQuote(s); err == nil {
			t.Errorf("%q accepted as %s", s, q)
		}
	}
}

func FuzzYAMLQuote(f *testing.F) {
	for _, s := range []string{"/var/lib/x", "it's", "a: b", "{}", "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { yamlRoundTrip(t, s) })
}
