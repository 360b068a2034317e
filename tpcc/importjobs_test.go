package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// Rows of crdb_internal.jobs as CockroachDB reports IMPORT jobs: the
// description is the statement with its placeholders replaced by the
// sources and the target qualified (v20.1 writes db.public.table).
var recordedJobs = []struct {
	id          int64
	status      string
	fraction    float64
	description string
	err         string
}{
	{712, "running", 0.4375, `IMPORT TABLE tpcc.public.customer (c_id INT8 NOT NULL, c_d_id INT8 NOT NULL, c_w_id INT8 NOT NULL) CSV DATA ('workload:///csv/tpcc/customer?fks=true&interleaved=false&row-end=37037037&row-start=0&seed=1&version=2.1.0&warehouses=100000', 'workload:///csv/tpcc/customer?fks=true&interleaved=false&row-end=74074074&row-start=37037037&seed=1&version=2.1.0&warehouses=100000') WITH nullif = 'NULL'`, ""},
	{711, "succeeded", 1, `IMPORT TABLE tpcc.public.item (i_id INT8 NOT NULL, i_im_id INT8, PRIMARY KEY (i_id)) CSV DATA ('workload:///csv/tpcc/item?fks=true&interleaved=false&row-end=100000&row-start=0&seed=1&version=2.1.0&warehouses=100000') WITH nullif = 'NULL'`, ""},
	{700, "failed", 0.12, `IMPORT TABLE tpcc.public."order" (o_id INT8 NOT NULL) CSV DATA ('workload:///csv/tpcc/order?fks=true&interleaved=false&row-end=37037037&row-start=0&seed=1&version=2.1.0&warehouses=100000') WITH nullif = 'NULL'`, "node liveness error: restarting in background"},
	{690, "paused", 0.5, `IMPORT INTO tpcc.public.stock CSV DATA ('workload:///csv/tpcc/stock?deprecated-fk-indexes=false&fks=true&row-end=5&row-start=0&seed=1&version=2.2.0&warehouses=10')`, ""},
	{650, "succeeded", 1, `IMPORT INTO "Other".public.new_order CSV DATA ('nodelocal://1/x.csv')`, ""},
}

func parsedJobs(t *testing.T) []ImportJob {
	var out []ImportJob
	for _, r := range recordedJobs {
		j, err := ParseImportJob(r.id, r.status, r.fraction, r.description, r.err)
		if err != nil {
			t.Fatalf("job %d: %v", r.id, err)
		}
		out = append(out, j)
	}
	return out
}

func TestParseImportJob(t *testing.T) {
	jobs := parsedJobs(t)
	want := []ImportJob{
		{ID: 712, Status: "running", Fraction: 0.4375, Table: "customer", DB: "tpcc", Warehouses: "100000", Seed: "1"},
		{ID: 711, Status: "succeeded", Fraction: 1, Table: "item", DB: "tpcc", Warehouses: "100000", Seed: "1"},
		{ID: 700, Status: "failed", Fraction: 0.12, Table: "order", DB: "tpcc", Warehouses: "100000", Seed: "1", Error: "node liveness error: restarting in background"},
		{ID: 690, Status: "paused", Fraction: 0.5, Table: "stock", DB: "tpcc", Warehouses: "10", Seed: "1"},
		{ID: 650, Status: "succeeded", Fraction: 1, Table: "new_order", DB: "Other"},
	}
	for i := range want {
		if jobs[i] != want[i] {
			t.Errorf("job %d:\n got %+v\nwant %+v", i, jobs[i], want[i])
		}
	}
	if _, err := ParseImportJob(1, "running", 0, "RESTORE foo FROM 'gs://x'", ""); err == nil {
		t.Error("a RESTORE job parsed as an import")
	}
	if j, _ := ParseImportJob(1, "running", 7, `IMPORT TABLE warehouse (w_id INT8) CSV DATA ('x')`, ""); j.Fraction != 0 || j.Table != "warehouse" || j.DB != "" {
		t.Errorf("unqualified target / bad fraction: %+v", j)
	}
}

func TestDecideImport(t *testing.T) {
	jobs := parsedJobs(t)
	for _, tc := range []struct {
		table, db, w string
		act          importAction
		id           int64
	}{
		{"customer", "tpcc", "100000", actAttach, 712},
		{"item", "tpcc", "100000", actSkip, 711},
		{"order", "tpcc", "100000", actStart, 0},     // failed: rolled back, import again
		{"item", "tpcc", "1000", actStart, 0},        // another --warehouses: not ours
		{"customer", "other", "100000", actStart, 0}, // another database
		{"stock", "tpcc", "10", actPaused, 690},
		{"warehouse", "tpcc", "100000", actStart, 0},
		{"new_order", "tpcc", "100000", actStart, 0}, // job of database "Other"
	} {
		act, j := decideImport(tc.table, tc.db, tc.w, "1", jobs)
		if act != tc.act || j.ID != tc.id {
			t.Errorf("%s/%s/%s: action %d job %d, want %d job %d", tc.table, tc.db, tc.w, act, j.ID, tc.act, tc.id)
		}
	}
}

func TestProgressLines(t *testing.T) {
	jobs := parsedJobs(t)
	last := map[string]ImportJob{}
	o := ImportOptions{DB: "tpcc", Warehouses: 100000, Seed: 1}
	got := progressLines(jobs, o, last, 0.01)
	want := []string{
		"import customer    43.8%  running   job 712",
		"import item       100.0%  succeeded job 711",
		"import order       12.0%  failed    job 700: node liveness error: restarting in background",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Unchanged jobs print nothing; a percent of progress prints again.
	if again := progressLines(jobs, o, last, 0.01); len(again) != 0 {
		t.Errorf("repeated: %q", again)
	}
	jobs[0].Fraction += 0.02
	if again := progressLines(jobs, o, last, 0.01); len(again) != 1 || !strings.Contains(again[0], "45.8%") {
		t.Errorf("after progress: %q", again)
	}
}

func TestImportResult(t *testing.T) {
	// v20.1: job_id, status, fraction_completed, rows, index_entries, bytes.
	if r, b := ImportResult([]any{int64(1), "succeeded", float32(1), int64(100000), int64(0), int64(8700000)}); r != 100000 || b != 8700000 {
		t.Errorf("6 columns: %d %d", r, b)
	}
	// With system_records.
	if r, b := ImportResult([]any{int64(1), "succeeded", float32(1), int64(30), int64(60), int64(0), int64(900)}); r != 30 || b != 900 {
		t.Errorf("7 columns: %d %d", r, b)
	}
}

func FuzzParseImportJob(f *testing.F) {
	for _, r := range recordedJobs {
		f.Add(r.description)
	}
	f.Add(`IMPORT TABLE "a""b".c."d" (x INT) CSV DATA ('workload:///csv/tpcc/d?warehouses=%zz')`)
	f.Fuzz(func(t *testing.T, desc string) {
		j, err := ParseImportJob(1, "running", 0.5, desc, "")
		if err == nil && j.Table == "" {
			t.Errorf("%q: parsed without a table", desc)
		}
	})
}

// TestTableHasRows runs the resume check's catalogue queries against real
// PostgreSQL (information_schema and a row probe are the same SQL there).
func TestTableHasRows(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	ctx := context.Background()
	url := s.CreateDatabase(t, "imp")
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var db string
	if err := pool.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	o := ImportOptions{DB: db}
	check := func(want bool) {
		t.Helper()
		got, err := tableHasRows(ctx, pool, o, "order")
		if err != nil || got != want {
			t.Fatalf("tableHasRows = %v, %v; want %v", got, err, want)
		}
	}
	check(false)
	if _, err := pool.Exec(ctx, `CREATE TABLE "order" (o_id int)`); err != nil {
		t.Fatal(err)
	}
	check(false)
	if _, err := pool.Exec(ctx, `INSERT INTO "order" VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	check(true)
	// SQLString through the real interpreter.
	for _, in := range []string{`{"columns": ["w_id"]}`, `it's`, `''`, `\'`, "a\nb", `$$`} {
		var out string
		if err := pool.QueryRow(ctx, "SELECT "+SQLString(in)).Scan(&out); err != nil || out != in {
			t.Errorf("SQLString(%q) read back as %q, %v", in, out, err)
		}
	}
}
