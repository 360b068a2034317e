package compare

import (
	"testing"

	"github.com/benchrig/benchrig/internal/jsonschema"
)

// loadSchema reads compare's output schema with the repository's one
// validator (internal/jsonschema), which refuses schema keywords it does
// not enforce.
func loadSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.Load("schema/compare.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The validation must be able to fail.
func TestValidatorRejects(t *testing.T) {
	s := loadSchema(t)
	for name, doc := range map[string]string{
		"wrong schema":  `{"schema":"x","alpha":0.05,"runs":[],"groups":[]}`,
		"missing field": `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[]}`,
		"extra field":   `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[],"groups":[],"x":1}`,
		"bad metric":    `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[],"groups":[{"point":"","metrics":[{"name":"tps","unit":"ms","better":"lower","values":[],"deltas":[]}]}]}`,
		"p above 1":     `{"schema":"benchrig.compare/v1","alpha":0.05,"runs":[],"groups":[{"point":"","metrics":[{"name":"tpmc","unit":"tpmC","better":"higher","values":[],"deltas":[{"run":"b","tested":true,"p":1.5,"significant":false,"n1":1,"n2":1}]}]}]}`,
	} {
		if errs := s.Validate([]byte(doc)); len(errs) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
}
