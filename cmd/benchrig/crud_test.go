package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/crud"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestCrudCommand runs `benchrig crud` against a real PostgreSQL, into a
// database that does not exist yet, and checks that the table has the
// seed's nine columns and one row of positive figures, and that --json
// writes the same result.
func TestCrudCommand(t *testing.T) {
	s := pgtest.Start(t, pgtest.NoSync())
	url := s.URL("crudcli") // created by the command
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "crud.json")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"benchrig", "crud", "--goroutines", "8", "--records", "50",
		"--select-repeat", "2", "--many-repeat", "10", "--drop", "--tsv", "--label", "loopback",
		"--json", jsonPath, url}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a header and one row, got:\n%s", out.String())
	}
	head, row := strings.Split(lines[0], "\t"), strings.Split(lines[1], "\t")
	want := []string{"Label", crud.ColInsDur, crud.ColUpdDur, crud.ColSelDur, crud.ColManyDur,
		crud.ColInsertQPS, crud.ColUpdateQPS, crud.ColSelect1QPS, crud.ColSelManyRow, crud.ColSelManyQPS}
	if strings.Join(head, "|") != strings.Join(want, "|") {
		t.Errorf("header %q, want %q", head, want)
	}
	if len(row) != 10 || row[0] != "loopback" {
		t.Fatalf("row %q", row)
	}
	// Durations of a 400-row phase can print as 0.00; the rates cannot be 0.
	for i, v := range row[5:] {
		if v == "0" || v == "" {
			t.Errorf("%s = %q, want a positive rate", want[5+i], v)
		}
	}
	for _, ph := range []string{"insert", "update", "select-one", "select-many"} {
		if !strings.Contains(errOut.String(), "crud: "+ph) {
			t.Errorf("no progress for %s on stderr:\n%s", ph, errOut.String())
		}
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	label, res, err := crud.ReadJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if label != "loopback" || res.Inserts != 400 || res.Selects != 800 || res.ManyRows != 4000 || res.ManyQueries != 80 {
		t.Errorf("json: %q %+v", label, res)
	}
	t.Logf("benchrig crud, 8×50 on loopback PostgreSQL (fsync off):\n%s", out.String())

	// --json - puts the JSON on stdout and the table on stderr.
	out.Reset()
	errOut.Reset()
	code = run(context.Background(), []string{"benchrig", "crud", "-q", "--goroutines", "2", "--records", "5",
		"--json", "-", url}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("--json -: exit %d: %s", code, errOut.String())
	}
	if _, _, err := crud.ReadJSON(out.Bytes()); err != nil {
		t.Errorf("--json -: stdout is not the JSON: %v\n%s", err, out.String())
	}
	if !strings.Contains(errOut.String(), crud.ColSelManyQPS) {
		t.Errorf("--json -: no table on stderr:\n%s", errOut.String())
	}
}

func TestCrudCommandUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no URL", []string{"benchrig", "crud"}},
		{"no goroutines", []string{"benchrig", "crud", "--goroutines", "0", "postgres://127.0.0.1:1/x"}},
		{"bad table", []string{"benchrig", "crud", "--table", "a.b.c", "postgres://127.0.0.1:1/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errOut); code != exitUsage {
				t.Errorf("exit %d, want %d (%s)", code, exitUsage, errOut.String())
			}
		})
	}
}

// TestCrudCommandCheckFails: a table whose updates are swallowed by a
// trigger makes the update check fail, and the command exit 30.
func TestCrudCommandCheckFails(t *testing.T) {
	s := pgtest.Start(t, pgtest.NoSync())
	url := s.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		`CREATE TABLE lossy (id BIGINT PRIMARY KEY, content TEXT NOT NULL)`,
		`CREATE FUNCTION drop_3() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN IF NEW.id = 3 THEN RETURN NULL; END IF; RETURN NEW; END $$`,
		`CREATE TRIGGER lossy_upd BEFORE UPDATE ON lossy FOR EACH ROW EXECUTE FUNCTION drop_3()`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"benchrig", "crud", "-q", "--goroutines", "2", "--records", "5", "--table", "lossy", url}, &out, &errOut)
	if code != exitCheck {
		t.Errorf("exit %d, want %d: %s", code, exitCheck, errOut.String())
	}
	if !strings.Contains(errOut.String(), "update check: key 3") {
		t.Errorf("stderr %q does not name the failed check", errOut.String())
	}
}
