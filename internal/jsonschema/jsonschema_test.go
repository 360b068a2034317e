package jsonschema

import (
	"encoding/json"
	"os"
	"path/filepath"
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
		{`{"items":[]}`, `/: missing property 'schema' (at /required)`},
		{`{"schema":"x/v2","items":[]}`, "/schema: value must be 'x/v1' (at /properties/schema/const)"},
		{`{"schema":"x/v1","items":[{"n":1.5}]}`, "/items/0/n: got number, want integer (at /$defs/item/properties/n/type)"},
		{`{"schema":"x/v1","items":[{"n":1,"m":2}]}`, "/items/0: additional properties 'm' not allowed (at /$defs/item/additionalProperties)"},
		{`{"schema":"x/v1","items":[],"extra":1}`, "/: additional properties 'extra' not allowed (at /additionalProperties)"},
		{`{"schema":"x/v1","items":[],"kind":"c"}`, "/kind: value must be one of 'a', 'b' (at /properties/kind/enum)"},
		{`{"schema":"x/v1","items":[],"opt":11}`, "/opt: maximum: got 11, want 10"},
		{`{"schema":"x/v1","items":[],"opt":-1}`, "/opt: minimum: got -1, want 0"},
		{`{"schema":"x/v1","items":[],"alt":true}`, "/alt: 'oneOf' failed, none matched (at /properties/alt/oneOf)"},
		{`{"schema":"x/v1","items":{}}`, "/items: got object, want array"},
		{`{"schema":"x/v1","items":[],"when":"2026-12-02T12:00:00Z"}`, ""},
		{`{"schema":"x/v1","items":[],"when":"yesterday"}`, "/when: 'yesterday' is not valid date-time"},
		{`{"schema":"x/v1","items":[],"pair":[1,2]}`, ""},
		{`{"schema":"x/v1","items":[],"pair":[1]}`, "/pair: minItems: got 1, want 2"},
		// Every violation at once, not the first.
		{`{"items":[{"n":"1"}],"kind":"c"}`, "/: missing property 'schema' (at /required)\n/items/0/n: got string, want integer (at /$defs/item/properties/n/type)\n/kind: value must be one of 'a', 'b' (at /properties/kind/enum)"},
		{`not json`, "document:"},
	} {
		errs := s.Validate([]byte(tc.doc))
		got := strings.Join(errs, "\n")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.doc, got, tc.want)
		}
	}
}

// A schema that is not valid against its draft's metaschema, or whose
// reference leaves the file or points nowhere, does not load.
func TestParseRefusesBadSchemas(t *testing.T) {
	for _, s := range []string{
		`{"type":"strnig"}`,
		`{"properties":{"a":{"minLength":-1}}}`,
		`{"required":"schema"}`,
		`{"$ref":"other.json#/x"}`,
		`{"$ref":"#/$defs/missing"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","minimum":"0"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"strnig"}`,
		`not json`,
	} {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}

// Every keyword is enforced, not only those benchrig's schemas use today:
// the validator is complete, so a schema promises nothing no test checks.
func TestEveryKeywordIsEnforced(t *testing.T) {
	s, err := Parse([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"^a","minLength":2}},"patternProperties":{"^x_":{"type":"integer"}},"dependentRequired":{"a":["b"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]string{
		`{"a":"ab","b":1,"x_1":2}`: "",
		`{"a":"ba","b":1}`:         "/a: 'ba' does not match pattern '^a'",
		`{"a":"a","b":1}`:          "/a: minLength: got 1, want 2",
		`{"x_1":"s"}`:              "/x_1: got string, want integer",
		`{"a":"ab"}`:               "/: properties 'b' required, if 'a' exists",
	} {
		got := strings.Join(s.Validate([]byte(doc)), "\n")
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", doc, got, want)
		}
	}
}

// Every schema file benchrig ships declares draft 2020-12, is valid
// against that draft's metaschema and loads (its references resolve
// within the file).
func TestShippedSchemas(t *testing.T) {
	files, err := filepath.Glob("../../docs/schema/*.json")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../orchestrator/*/schema/*.json")
	files = append(files, more...)
	if len(files) < 8 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Schema string `json:"$schema"`
		}
		if err := json.Unmarshal(data, &head); err != nil || head.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %q, want draft 2020-12 (%v)", f, head.Schema, err)
		}
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
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
