package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Schema is a loaded schema file.
type Schema struct {
	root map[string]any
}

// Load reads a schema file.
func Load(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// Parse decodes a schema and rejects keywords this package does not
// enforce.
func Parse(data []byte) (*Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	s := &Schema{root: root}
	if err := s.known(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

var keywords = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$ref": true, "$comment": true,
	"title": true, "description": true, "examples": true,
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "minItems": true, "enum": true, "const": true, "minimum": true, "maximum": true, "oneOf": true, "format": true,
}

func (s *Schema) known(node map[string]any, at string) error {
	for k, v := range node {
		if !keywords[k] {
			return fmt.Errorf("schema %s: keyword %q is not supported", at, k)
		}
		switch k {
		case "$defs", "properties":
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("schema %s/%s: want an object", at, k)
			}
			for name, sub := range m {
				sm, ok := sub.(map[string]any)
				if !ok {
					return fmt.Errorf("schema %s/%s/%s: want an object", at, k, name)
				}
				if err := s.known(sm, at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items", "additionalProperties":
			if sm, ok := v.(map[string]any); ok {
				if err := s.known(sm, at+"/"+k); err != nil {
					return err
				}
			}
		case "oneOf":
			list, _ := v.([]any)
			for i, sub := range list {
				sm, ok := sub.(map[string]any)
				if !ok {
					return fmt.Errorf("schema %s/oneOf/%d: want an object", at, i)
				}
				if err := s.known(sm, fmt.Sprintf("%s/oneOf/%d", at, i)); err != nil {
					return err
				}
			}
		case "format":
			if v != "date-time" {
				return fmt.Errorf("schema %s: format %v is not supported", at, v)
			}
		case "$ref":
			if _, err := s.resolve(v); err != nil {
				return fmt.Errorf("schema %s: %w", at, err)
			}
		}
	}
	return nil
}

func (s *Schema) resolve(ref any) (map[string]any, error) {
	r, _ := ref.(string)
	name, ok := strings.CutPrefix(r, "#/$defs/")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only #/$defs/NAME is supported", r)
	}
	defs, _ := s.root["$defs"].(map[string]any)
	def, ok := defs[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q: no such definition", r)
	}
	return def, nil
}

// Validate checks a JSON document and returns every violation, each with
// its JSON pointer ("/result/operations/0/count: ...").
func (s *Schema) Validate(doc []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{"document: " + err.Error()}
	}
	var errs []string
	s.check(s.root, v, "", &errs)
	return errs
}

func (s *Schema) check(node map[string]any, v any, at string, errs *[]string) {
	fail := func(format string, args ...any) {
		p := at
		if p == "" {
			p = "/"
		}
		*errs = append(*errs, p+": "+fmt.Sprintf(format, args...))
	}
	if ref, ok := node["$ref"]; ok {
		def, err := s.resolve(ref)
		if err != nil {
			fail("%v", err)
			return
		}
		s.check(def, v, at, errs)
	}
	if t, ok := node["type"]; ok && !typeMatches(t, v) {
		fail("%s is not of type %v", kindOf(v), t)
		return
	}
	if c, ok := node["const"]; ok && !equal(c, v) {
		fail("%v, want %v", v, c)
	}
	if e, ok := node["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || equal(x, v)
		}
		if !found {
			fail("%v is not one of %v", v, e)
		}
	}
	if f, ok := node["format"]; ok {
		str, isStr := v.(string)
		switch {
		case f != "date-time":
			fail("format %v is not supported", f)
		case isStr:
			if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
				fail("%q is not a date-time: %v", str, err)
			}
		}
	}
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		if lo, ok := node["minimum"].(float64); ok && f < lo {
			fail("%v < minimum %v", f, lo)
		}
		if hi, ok := node["maximum"].(float64); ok && f > hi {
			fail("%v > maximum %v", f, hi)
		}
	}
	if alts, ok := node["oneOf"].([]any); ok {
		matched := 0
		var first []string
		for _, a := range alts {
			var sub []string
			s.check(a.(map[string]any), v, at, &sub)
			if len(sub) == 0 {
				matched++
			} else if first == nil || len(sub) < len(first) {
				first = sub
			}
		}
		switch {
		case matched == 0:
			fail("matches none of oneOf; closest: %s", strings.Join(first, "; "))
		case matched > 1:
			fail("matches %d of oneOf, want exactly 1", matched)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := node["properties"].(map[string]any)
		if req, ok := node["required"].([]any); ok {
			for _, r := range req {
				if _, ok := x[r.(string)]; !ok {
					fail("missing required property %q", r)
				}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := at + "/" + k
			if p, ok := props[k].(map[string]any); ok {
				s.check(p, x[k], child, errs)
				continue
			}
			switch ap := node["additionalProperties"].(type) {
			case bool:
				if !ap {
					*errs = append(*errs, child+": property not in the schema")
				}
			case map[string]any:
				s.check(ap, x[k], child, errs)
			}
		}
	case []any:
		if m, ok := node["minItems"].(float64); ok && float64(len(x)) < m {
			fail("%d items, fewer than minItems %v", len(x), m)
		}
		if items, ok := node["items"].(map[string]any); ok {
			for i, e := range x {
				s.check(items, e, fmt.Sprintf("%s/%d", at, i), errs)
			}
		}
	}
}

func typeMatches(t, v any) bool {
	switch tt := t.(type) {
	case string:
		return isType(tt, v)
	case []any:
		for _, x := range tt {
			if s, ok := x.(string); ok && isType(s, v) {
				return true
			}
		}
	}
	return false
}

func isType(t string, v any) bool {
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
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f)
	}
	return false
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case json.Number:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// equal compares a schema value (numbers as float64) with a document
// value (numbers as json.Number).
func equal(schema, doc any) bool {
	if n, ok := doc.(json.Number); ok {
		f, err := n.Float64()
		sf, ok := schema.(float64)
		return err == nil && ok && f == sf
	}
	return reflect.DeepEqual(schema, doc)
}
