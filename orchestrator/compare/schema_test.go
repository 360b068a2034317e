package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// validate checks v against the subset of JSON Schema (2020-12) the
// schema files of this repository use: type, const, enum, required,
// properties, additionalProperties: false, items, minItems, minimum,
// maximum and local $ref. A schema keyword outside the subset fails the
// test, so the schema cannot silently say more than is checked.
func validate(root, s map[string]any, v any, path string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return validate(root, root["$defs"].(map[string]any)[name].(map[string]any), v, path)
	}
	var errs []string
	bad := func(f string, a ...any) { errs = append(errs, path+": "+fmt.Sprintf(f, a...)) }
	for k := range s {
		switch k {
		case "$schema", "$id", "$defs", "title", "description", "format", "type", "const", "enum", "required",
			"properties", "additionalProperties", "items", "minItems", "minimum", "maximum":
		default:
			bad("schema keyword %q is not checked by this validator", k)
		}
	}
	if t, ok := s["type"].(string); ok && !hasType(v, t) {
		bad("%v is not of type %s", v, t)
		return errs
	}
	if c, ok := s["const"]; ok && c != v {
		bad("%v is not %v", v, c)
	}
	if e, ok := s["enum"].([]any); ok && !slices.Contains(e, v) {
		bad("%v is not one of %v", v, e)
	}
	if n, ok := v.(float64); ok {
		if m, ok := s["minimum"].(float64); ok && n < m {
			bad("%v < minimum %v", n, m)
		}
		if m, ok := s["maximum"].(float64); ok && n > m {
			bad("%v > maximum %v", n, m)
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		for _, r := range s["required"].([]any) {
			if _, ok := obj[r.(string)]; !ok {
				bad("missing required %q", r)
			}
		}
		for k, val := range obj {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					bad("property %q is not in the schema", k)
				}
				continue
			}
			errs = append(errs, validate(root, ps, val, path+"."+k)...)
		}
	}
	if arr, ok := v.([]any); ok {
		if m, ok := s["minItems"].(float64); ok && float64(len(arr)) < m {
			bad("%d items, fewer than %v", len(arr), m)
		}
		if is, ok := s["items"].(map[string]any); ok {
			for i, e := range arr {
				errs = append(errs, validate(root, is, e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return errs
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		n, ok := v.(float64)
		return ok && n == math.Trunc(n)
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	return false
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("schema/compare.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// The validator itself must be able to fail.
func TestValidatorRejects(t *testing.T) {
	s := loadSchema(t)
	for name, doc := range map[string]string{
		"wrong schema":  `{"schema":"x","alpha":0.05,"runs":[],"groups":[]}`,
		"missing field": `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[]}`,
		"extra field":   `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[],"groups":[],"x":1}`,
		"bad metric":    `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[],"groups":[{"point":"","metrics":[{"name":"tps","unit":"ms","better":"lower","values":[],"deltas":[]}]}]}`,
		"p above 1":     `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[],"groups":[{"point":"","metrics":[{"name":"tpmc","unit":"tpmC","better":"higher","values":[],"deltas":[{"run":"b","tested":true,"p":1.5,"significant":false,"n1":1,"n2":1}]}]}]}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if errs := validate(s, s, v, "$"); len(errs) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
}
