package jsonschema

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled schema file.
type Schema struct {
	s *jsonschema.Schema
}

// Load reads and compiles a schema file.
func Load(path string) (*Schema, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	return compile("file://"+filepath.ToSlash(abs), data)
}

// Parse compiles a schema given as bytes.
func Parse(data []byte) (*Schema, error) {
	return compile("mem:///schema.json", data)
}

// compile checks the schema against the metaschema of the draft its
// "$schema" declares (2020-12 when it declares none) and compiles it.
// Every reference must resolve within the document: nothing is fetched,
// not even the metaschemas, which the library embeds.
func compile(url string, data []byte) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// "format" is only an annotation in 2020-12 unless asserted; the
	// schemas' date-time fields are meant to be checked.
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	return &Schema{s: s}, nil
}

// noLoader refuses every URL the schema itself does not hold.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: not loaded (schemas must be self-contained)", url)
}

// Validate checks a JSON document and returns every violation, each with
// its JSON pointer and the schema keyword that failed
// ("/result/operations/0/count: got number, want integer (at
// /properties/result/...)").
func (s *Schema) Validate(doc []byte) []string {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return []string{"document: " + err.Error()}
	}
	err = s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"document: " + err.Error()}
	}
	var out []string
	collect(ve, &out)
	if len(out) == 0 {
		out = []string{"/: " + err.Error()}
	}
	// The library visits an object's properties in map order: sorted, the
	// same document gives the same list every time.
	slices.Sort(out)
	return slices.Compact(out)
}

// collect lists the violations under e: the leaves of the tree of causes,
// and the combinators (oneOf, anyOf, ...) that failed as a whole above
// their branches' own leaves. The library's wrappers ("validation failed
// with", "$ref") add nothing a reader needs.
func collect(e *jsonschema.ValidationError, out *[]string) {
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Reference, *kind.Group:
	default:
		if len(e.Causes) == 0 || len(e.Causes) > 1 {
			at := "/" + strings.Join(escape(e.InstanceLocation), "/")
			kw := e.SchemaURL
			if i := strings.IndexByte(kw, '#'); i >= 0 {
				kw = kw[i+1:]
			} else {
				kw = ""
			}
			if p := e.ErrorKind.KeywordPath(); len(p) > 0 {
				kw += "/" + strings.Join(escape(p), "/")
			}
			*out = append(*out, fmt.Sprintf("%s: %s (at %s)", at, e.ErrorKind.LocalizedString(english), kw))
		}
	}
	for _, c := range e.Causes {
		collect(c, out)
	}
}

var english = message.NewPrinter(language.English)

// escape makes JSON pointer tokens of names (RFC 6901: ~ and /).
func escape(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
	}
	return out
}
