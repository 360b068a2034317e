package stages_test

import (
	"bytes"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/crdb"

	"github.com/benchrig/benchrig/crdb/fixtures"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

func compile100k(t *testing.T, edit func(string) string) (*plan.Plan, []stages.Stage) {
	t.Helper()
	stages.WithLicense(t)
	p := loadPlanText(t, "../../plans/tpcc-100k.yaml", edit)
	compiled, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig/bin/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	return p, compiled
}

func stepsOf(compiled []stages.Stage, name string) []stages.Step {
	for _, st := range compiled {
		if st.Name == name {
			return st.Steps
		}
	}
	return nil
}

// on808 is the 100k plan on a v20.1.8 archive: the last patch level
// whose workload has generator 2.1.0 and the old partitioning.
func on808(s string) string { return strings.ReplaceAll(s, "cockroach-v20.1.17", "cockroach-v20.1.8") }

// TestImportStage100k checks the 100k plan's import against the
// release-20.1 source (docs/fidelity/v20.1.md): one job on workload1
// running `benchrig tpcc import` for the plan's build on 81 nodes,
// showing one IMPORT TABLE per table (9) with 81 or 82
// workload:///csv/tpcc/ sources (82 when the batches do not divide by 81:
// workload's short last range), warehouses=100000, seed=1, fks=true, the
// build's generator (v20.1.17: version=2.2.0 and deprecated-fk-indexes=true;
// v20.1.8: 2.1.0 and no such flag), statistics for all nine tables stamped
// with the import's time (no fixed date), and the 10 NOT VALID foreign
// keys; and that what it shows is what the command's own flags produce.
func TestImportStage100k(t *testing.T) {
	for _, tc := range []struct {
		build, gen, dfk string
		edit            func(string) string
	}{
		{"v20.1.17", "2.2.0", "true", nil},
		{"v20.1.8", "2.1.0", "", on808},
	} {
		t.Run(tc.build, func(t *testing.T) {
			_, compiled := compile100k(t, tc.edit)
			steps := stepsOf(compiled, "import")
			if len(steps) != 1 {
				t.Fatalf("import: %d steps, want one job", len(steps))
			}
			s := steps[0]
			want := "./benchrig tpcc import --cockroach-version " + tc.build + " --nodes 81 --warehouses 100000 postgres://root@10.0.1.11:26257/tpcc?sslmode=disable"
			if s.Host != "workload1" || s.Kind != stages.Job || strings.Join(s.Cmd.Args, " ") != want {
				t.Fatalf("import step %s %s %q, want a job on workload1: %s", s.Host, s.Kind, s.Cmd.Args, want)
			}
			imports := regexp.MustCompile(`(?m)^IMPORT TABLE "([a-z_]+)"`).FindAllStringSubmatch(s.Shows, -1)
			if len(imports) != 9 {
				t.Errorf("%d IMPORT statements, want 9", len(imports))
			}
			for _, m := range imports {
				table := m[1]
				srcs := regexp.MustCompile(`(?m)^--   \$\d+ = (workload:///csv/tpcc/`+table+`\?\S+)$`).FindAllStringSubmatch(s.Shows, -1)
				if n := len(srcs); n != 81 && n != 82 {
					t.Errorf("%s: %d sources, want 81 (82 with a short last range)", table, n)
				}
				for _, src := range srcs {
					u, err := url.Parse(src[1])
					if err != nil {
						t.Fatal(err)
					}
					q := u.Query()
					if q.Get("version") != tc.gen || q.Get("warehouses") != "100000" || q.Get("seed") != "1" || q.Get("fks") != "true" ||
						q.Get("deprecated-fk-indexes") != tc.dfk {
						t.Errorf("%s: source %s: want version=%s, deprecated-fk-indexes=%q, warehouses=100000, seed=1, fks=true", table, src[1], tc.gen, tc.dfk)
						break
					}
				}
			}
			if other := map[string]string{"2.2.0": "version=2.1.0", "2.1.0": "version=2.2.0"}[tc.gen]; strings.Contains(s.Shows, other) {
				t.Errorf("%s shown for %s", other, tc.build)
			}
			if n := regexp.MustCompile(`(?m)^ALTER TABLE "[a-z_]+" INJECT STATISTICS`).FindAllString(s.Shows, -1); len(n) != 9 {
				t.Errorf("statistics for %d tables, want 9", len(n))
			}
			if strings.Contains(s.Shows, "2018-") || !strings.Contains(s.Shows, fixtures.StatsNowPlaceholder) {
				t.Error("the statistics are not stamped with the import's time")
			}
			if n := strings.Count(s.Shows, "FOREIGN KEY"); n != 10 {
				t.Errorf("%d foreign keys, want 10", n)
			}
			if n := strings.Count(s.Shows, "NOT VALID;"); n != 10 {
				t.Errorf("%d NOT VALID statements, want 10", n)
			}
			if !strings.Contains(s.Shows, "49.91G rows, 8.0 TB") || !strings.Contains(s.Shows, "warehouses per node-hour, the published 100k recipe's") {
				t.Errorf("the estimate (rows, bytes, rate and its source) is not shown:\n%s", lastLine(s.Shows))
			}

			// What the step shows is what its own flags make `tpcc import` issue.
			fs := flag.NewFlagSet("import", flag.ContinueOnError)
			version := fs.String("cockroach-version", "", "")
			nodes := fs.Int("nodes", 0, "")
			warehouses := fs.Int("warehouses", 0, "")
			if err := fs.Parse(s.Cmd.Args[3:]); err != nil {
				t.Fatal(err)
			}
			b, err := crdb.ParseBuild(*version)
			if err != nil {
				t.Fatal(err)
			}
			ip, err := fixtures.PlanImport(fixtures.ImportOptions{Version: b.Version, Build: b, Warehouses: *warehouses, Seed: 1, FKs: true, Nodes: *nodes,
				InjectStats: true, Schema: fixtures.ImportSchema(b.Version, true)})
			if err != nil {
				t.Fatal(err)
			}
			if wantShows := ip.Display() + "-- " + fixtures.EstimateImport(*warehouses, *nodes).String(); s.Shows != wantShows {
				t.Error("the import step shows something else than tpcc import --dry-run prints for its flags")
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestPartitionStage100k: the partitioning run shows the statements of
// the plan's build's workload: p0_0 from 0 to 3703 (bounds (i*W)/P on
// 0-based ids), the partitions p<idx>_0..p<idx>_26 pinned to +rack=<i>,
// one item replica per rack, replicated_idx_0..26 (replicateItem's
// statements); on v20.1.17 "order"@order_idx partitioned and no FK index,
// on v20.1.8 the three FK indexes partitioned and order_idx skipped.
func TestPartitionStage100k(t *testing.T) {
	fkIdx := []string{"order_line@order_line_stock_fk_idx", "history@history_customer_fk_idx", "history@history_district_fk_idx"}
	for _, tc := range []struct {
		build        string
		edit         func(string) string
		orderIdx, fk bool
	}{
		{"v20.1.17", nil, true, false},
		{"v20.1.8", on808, false, true},
	} {
		t.Run(tc.build, func(t *testing.T) {
			_, compiled := compile100k(t, tc.edit)
			var shows string
			for _, s := range stepsOf(compiled, "partition") {
				if s.JobName == "partition" {
					shows = s.Shows
				}
			}
			for _, want := range []string{
				"ALTER TABLE warehouse PARTITION BY RANGE (w_id) (\n  PARTITION p0_0 VALUES FROM (0) to (3703),\n  PARTITION p0_1 VALUES FROM (3703) to (7407),",
				"  PARTITION p0_26 VALUES FROM (96296) to (100000)\n)",
				"ALTER PARTITION p0_26 OF TABLE warehouse CONFIGURE ZONE USING constraints = '[+rack=26]'",
				"-- workload's partitioning for CockroachDB " + tc.build,
			} {
				if !strings.Contains(shows, want) {
					t.Errorf("partitioning SQL lacks %q", want)
				}
			}
			if got := strings.Contains(shows, `ALTER INDEX "order"@order_idx PARTITION BY RANGE (o_w_id)`); got != tc.orderIdx {
				t.Errorf("order_idx partitioned: %v, want %v", got, tc.orderIdx)
			}
			for _, ix := range fkIdx {
				if got := strings.Contains(shows, "ALTER INDEX "+ix+" PARTITION BY"); got != tc.fk {
					t.Errorf("%s partitioned: %v, want %v", ix, got, tc.fk)
				}
			}
			for i := 0; i < 27; i++ {
				idx := fmt.Sprintf("CREATE UNIQUE INDEX replicated_idx_%d ON item (i_id) STORING (i_im_id, i_name, i_price, i_data)", i)
				zone := fmt.Sprintf(`ALTER INDEX item@replicated_idx_%d CONFIGURE ZONE USING num_replicas = COPY FROM PARENT, constraints = '{"+rack=%d":1}', lease_preferences = '[[+rack=%d]]'`, i, i, i)
				if !strings.Contains(shows, idx) || !strings.Contains(shows, zone) {
					t.Errorf("item replica %d missing or not pinned to rack %d", i, i)
				}
			}
			if strings.Contains(shows, "replicated_idx_27") || strings.Contains(shows, "item_idx_") {
				t.Error("a 28th item replica, or v21.1's names")
			}
		})
	}
}

// TestRacksAndAffinity100k: crdb01 rack 0, crdb02 rack 1, crdb28 rack 0
// in the start commands; the five affinity sets of the recipe.
func TestRacksAndAffinity100k(t *testing.T) {
	_, compiled := compile100k(t, nil)
	racks := map[string]string{}
	for _, s := range stepsOf(compiled, "start") {
		for _, a := range s.Cmd.Args {
			if r, ok := strings.CutPrefix(a, "--locality=rack="); ok {
				racks[s.Host] = r
			}
		}
	}
	for host, want := range map[string]string{"crdb01": "0", "crdb02": "1", "crdb27": "26", "crdb28": "0", "crdb81": "26"} {
		if racks[host] != want {
			t.Errorf("%s in rack %q, want %s", host, racks[host], want)
		}
	}
	want := map[string]string{"workload1": "0,5,10,15,20,25", "workload2": "1,6,11,16,21,26", "workload3": "2,7,12,17,22",
		"workload4": "3,8,13,18,23", "workload5": "4,9,14,19,24"}
	for _, stage := range []string{"allocate", "run"} {
		n := 0
		for _, s := range stepsOf(compiled, stage) {
			for i, a := range s.Cmd.Args {
				if a == "--partition-affinity" {
					n++
					if s.Cmd.Args[i+1] != want[s.Host] {
						t.Errorf("%s %s: affinity %s, want %s", stage, s.Host, s.Cmd.Args[i+1], want[s.Host])
					}
				}
			}
		}
		if n != 5 {
			t.Errorf("%s: %d hosts with an affinity, want 5", stage, n)
		}
	}
}

// TestReplicationWait: the wait reads crdb_internal.ranges_no_leases,
// which does not ask every range for its lease.
func TestReplicationWait(t *testing.T) {
	_, compiled := compile100k(t, nil)
	for _, s := range stepsOf(compiled, "partition") {
		if s.Kind == stages.Wait {
			sql := strings.Join(s.Cmd.Args, " ")
			if !strings.Contains(sql, crdb.ReplicationSettledSQL(3)) || strings.Contains(sql, "crdb_internal.ranges ") {
				t.Errorf("replication wait: %s", sql)
			}
			return
		}
	}
	t.Fatal("no replication wait")
}

// loadPlanText loads a shipped plan, its text first changed by edit (nil:
// as shipped), from a file next to it so relative paths still resolve.
func loadPlanText(t *testing.T, file string, edit func(string) string) *plan.Plan {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if edit != nil {
		text = edit(text)
	}
	p, err := plan.ParsePlan(file, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPostgresLoadsFromEveryHost: by default every workload host loads a
// disjoint 0-based warehouse range, i*W/n .. (i+1)*W/n-1, to the primary;
// import.hosts: first loads from the first host alone.
func TestPostgresLoadsFromEveryHost(t *testing.T) {
	loads := func(edit func(string) string) []string {
		p := loadPlanText(t, "../../plans/local.yaml", edit)
		compiled, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig/bin/benchrig"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range stepsOf(compiled, "import") {
			if s.Kind == stages.Job {
				out = append(out, s.Host+": "+strings.Join(s.Cmd.Args, " "))
			}
		}
		return out
	}
	const url = "postgres://127.0.0.2:25432/tpcc?sslmode=disable"
	ten := func(s string) string { return strings.Replace(s, "warehouses: 2\n", "warehouses: 11\n", 1) }
	got := loads(ten)
	want := []string{
		"load1: ./benchrig tpcc load --warehouses 11 --from 0 --to 4 " + url,
		"load2: ./benchrig tpcc load --warehouses 11 --from 5 --to 10 " + url,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("loads:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = loads(func(s string) string {
		return strings.Replace(ten(s), "tpcc:\n", "tpcc:\n  import: {hosts: first}\n", 1)
	})
	if len(got) != 1 || got[0] != "load1: ./benchrig tpcc load --warehouses 11 "+url {
		t.Errorf("import.hosts first: %q", got)
	}
}

// TestCockroachCopyLoadsToTheServingRack: import.method copy from every
// host sends each warehouse range to a node of the rack its first
// warehouse's partition is pinned to (20000 is in p5, [18518, 22222)).
func TestCockroachCopyLoadsToTheServingRack(t *testing.T) {
	_, compiled := compile100k(t, func(s string) string {
		return strings.Replace(s, "tpcc:\n", "tpcc:\n  import: {method: copy, hosts: all}\n", 1)
	})
	var got []string
	for _, s := range stepsOf(compiled, "import") {
		if s.Kind == stages.Job {
			got = append(got, s.Host+" "+s.Cmd.Args[len(s.Cmd.Args)-1])
		}
	}
	want := "workload1 postgres://root@10.0.1.11:26257/tpcc?sslmode=disable " + // p0 rack 0: crdb01
		"workload2 postgres://root@10.0.1.16:26257/tpcc?sslmode=disable " + // p5: crdb06
		"workload3 postgres://root@10.0.1.21:26257/tpcc?sslmode=disable " + // 40000 in p10: crdb11
		"workload4 postgres://root@10.0.1.27:26257/tpcc?sslmode=disable " + // 60000 in p16: crdb17
		"workload5 postgres://root@10.0.1.32:26257/tpcc?sslmode=disable" // 80000 in p21: crdb22
	if strings.Join(got, " ") != want {
		t.Errorf("copy loaders:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}

// TestShowGolden pins `plan show` of every shipped plan: racks per node,
// partitions per workload host, release, import method and driver.
func TestShowGolden(t *testing.T) {
	stages.WithLicense(t)
	for _, f := range shippedPlans(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			p, err := plan.LoadPlan(f)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := stages.Show(&out, p); err != nil {
				t.Fatal(err)
			}
			golden(t, "show/"+name+".golden", out.Bytes())
		})
	}
}

// TestPostgresInitTakesTheFillFactor: tpcc.fillfactor reaches `tpcc init`
// in the import stage (and only there: load inherits the tables).
func TestPostgresInitTakesTheFillFactor(t *testing.T) {
	p := loadPlanText(t, "../../plans/local.yaml", func(s string) string {
		return strings.Replace(s, "tpcc:\n", "tpcc:\n  fillfactor: 85\n", 1)
	})
	compiled, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig/bin/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	var inits, withFF int
	for _, st := range compiled {
		for _, s := range st.Steps {
			args := strings.Join(s.Cmd.Args, " ")
			if strings.Contains(args, "tpcc init ") {
				inits++
				if !strings.Contains(args, " --fillfactor 85 ") {
					t.Errorf("%s: %s lacks --fillfactor 85", st.Name, args)
				}
			}
			if strings.Contains(args, "--fillfactor") {
				withFF++
			}
		}
	}
	if inits == 0 || withFF != inits {
		t.Errorf("%d tpcc init steps, %d steps with --fillfactor: want the inits alone", inits, withFF)
	}
}
