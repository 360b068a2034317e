package crud

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, label string, r Result) string {
		var b bytes.Buffer
		if err := WriteJSON(&b, label, r); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", "host-a", Result{Inserts: 10, InsertDur: time.Second})
	b := write("b.json", "", Result{Inserts: 20, InsertDur: 2 * time.Second})
	for _, tc := range []struct {
		files  []string
		labels []string
		ok     bool
	}{
		{[]string{a}, []string{"host-a"}, true},
		{[]string{a, b}, []string{"host-a", b, "all"}, true},
		{[]string{a, filepath.Join(dir, "missing.json")}, nil, false},
	} {
		rows, err := MergeFiles(tc.files...)
		if (err == nil) != tc.ok {
			t.Fatalf("MergeFiles(%v): err %v, want ok=%v", tc.files, err, tc.ok)
		}
		if len(rows) != len(tc.labels) {
			t.Fatalf("MergeFiles(%v): %d rows, want %d", tc.files, len(rows), len(tc.labels))
		}
		for i, r := range rows {
			if r.Label != tc.labels[i] {
				t.Errorf("row %d label %q, want %q", i, r.Label, tc.labels[i])
			}
		}
		if len(rows) == 3 && (rows[2].Result.Inserts != 30 || rows[2].Result.InsertDur != 2*time.Second) {
			t.Errorf("all = %+v; want 30 inserts over 2s (the slowest host)", rows[2].Result)
		}
	}
}
