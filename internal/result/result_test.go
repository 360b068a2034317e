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
		{`{"schema":"benchrig.result/v2","kind":"x"}`, "benchrig.result/v2"},
		{`{"schema":"benchrig.result/v1","kind":"y"}`, `kind "y"`},
		{`[1]`, "cannot unmarshal"},
	} {
		err := Decode([]byte(tc.data), &d, "x")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.data, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
