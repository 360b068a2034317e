package jsonschema

import (
	"strings"
	"testing"
)

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["schema", "items"],
  "additionalProperties": false,
  "properties": {
    "schema": {"const": "x/v1"},
    "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    "kind": {"enum": ["a", "b"]},
    "opt": {"type": ["number", "null"], "minimum": 0, "maximum": 10},
    "when": {"type": "string", "format": "date-time"},
    "alt": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    "pair": {"type": "array", "minItems": 2}
  },
  "$defs": {
    "item": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}, "additionalProperties": false}
  }
}`

func TestValidate(t *testing.T) {
	s, err := Parse([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		doc  string
		want string // "" for valid
	}{
		{`{"schema":"x/v1","items":[{"n":1}],"kind":"a","opt":null,"alt":3}`, ""},
		{`{"schema":"x/v1","items":[],"opt":2.5,"alt":"s"}`, ""},
		{`{"items":[]}`, `/: missing required property "schema"`},
		{`{"schema":"x/v2","items":[]}`, "/schema: x/v2, want x/v1"},
		{`{"schema":"x/v1","items":[{"n":1.5}]}`, "/items/0/n: number is not of type integer"},
		{`{"schema":"x/v1","items":[{"n":1,"m":2}]}`, "/items/0/m: property not in the schema"},
		{`{"schema":"x/v1","items":[],"extra":1}`, "/extra: property not in the schema"},
		{`{"schema":"x/v1","items":[],"kind":"c"}`, "/kind: c is not one of"},
		{`{"schema":"x/v1","items":[],"opt":11}`, "/opt: 11 > maximum 10"},
		{`{"schema":"x/v1","items":[],"opt":-1}`, "/opt: -1 < minimum 0"},
		{`{"schema":"x/v1","items":[],"alt":true}`, "/alt: matches none of oneOf"},
		{`{"schema":"x/v1","items":{}}`, "/items: object is not of type array"},
		{`{"schema":"x/v1","items":[],"when":"2026-12-02T12:00:00Z"}`, ""},
		{`{"schema":"x/v1","items":[],"when":"yesterday"}`, "/when: \"yesterday\" is not a date-time"},
		{`{"schema":"x/v1","items":[],"pair":[1,2]}`, ""},
		{`{"schema":"x/v1","items":[],"pair":[1]}`, "/pair: 1 items, fewer than minItems 2"},
		{`not json`, "document:"},
	} {
		errs := s.Validate([]byte(tc.doc))
		got := strings.Join(errs, "\n")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.doc, got, tc.want)
		}
	}
}

func TestParseRefusesUnknownKeywords(t *testing.T) {
	for _, s := range []string{
		`{"type":"string","pattern":"^a"}`,
		`{"properties":{"a":{"minLength":1}}}`,
		`{"$ref":"other.json#/x"}`,
		`{"$ref":"#/$defs/missing"}`,
		`{"format":"email"}`,
	} {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}

// FuzzValidate: any document gets a list of violations, never a panic.
func FuzzValidate(f *testing.F) {
	s, err := Parse([]byte(testSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"schema":"x/v1","items":[{"n":1}],"kind":"a","opt":null,"alt":3}`))
	f.Add([]byte(`{"items":[{"n":1e400}],"when":"2026-13-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = s.Validate(data)
	})
}
