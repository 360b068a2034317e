package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type doc struct {
	Header
	N int `json:"n"`
}

func TestRoundTripAndRefusals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, doc{New("x"), 7}); err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := ReadFile(path, &d, "x"); err != nil || d.N != 7 || d.Schema != Schema {
		t.Fatalf("%+v, %v", d, err)
	}
	for _, tc := range []struct{ data, want string }{
		{`{"n":1}`, "no \"schema\""},
		{`{"schema":"benchrig.result/v3","kind":"x"}`, "benchrig.result/v3"},
		{`{"schema":"benchrig.result/v1","kind":"y"}`, `kind "y"`},
		{`[1]`, "cannot unmarshal"},
	} {
		err := Decode([]byte(tc.data), &d, "x")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.data, err, tc.want)
		}
	}
	// v2 (an incomplete merge) reads too.
	if err := Decode([]byte(`{"schema":"benchrig.result/v2","kind":"x","n":2}`), &d, "x"); err != nil || d.N != 2 {
		t.Errorf("v2: %+v, %v", d, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// FuzzDecode: any input is a result of the kind or an error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema":"benchrig.result/v1","kind":"x","n":3}`))
	f.Add([]byte(`{"schema":"benchrig.result/v1","kind":"x","n":"3"}`))
	f.Add([]byte(`{"schema":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d doc
		if err := Decode(data, &d, "x"); err == nil && (d.Schema != Schema && d.Schema != SchemaV2 || d.Kind != "x") {
			t.Errorf("accepted %+v from %q", d.Header, data)
		}
	})
}
