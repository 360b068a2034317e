package crud

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/jsonschema"
)

// TestJSONMatchesSchema: what --json writes is a benchrig.result/v1
// document of kind crud, as docs/schema/result.v1.json describes.
func TestJSONMatchesSchema(t *testing.T) {
	s, err := jsonschema.Load("../docs/schema/result.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, "tmpfs", seedTMPFS()); err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(b.Bytes()); len(errs) > 0 {
		t.Errorf("crud JSON does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
}

func TestReadJSONRefuses(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"workload":"crud","goroutines":1}`, "no \"schema\" field"},
		{`{"schema":"benchrig.result/v1","kind":"tpcc.run"}`, `kind "tpcc.run"`},
		{`{"schema":"benchrig.result/v9","kind":"crud"}`, "benchrig.result/v9"},
	} {
		if _, _, err := ReadJSON([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.doc, err, tc.want)
		}
	}
}
