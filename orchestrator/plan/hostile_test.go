package plan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// basePlan is a small valid postgres plan the tests below change one
// thing of.
const basePlan = `version: 1
name: t
flavor: postgres
nodes:
  - name: db1
    addr: 127.0.0.2
workload:
  - name: w1
binaries:
  database: {host: /usr/lib/postgresql/15/bin}
tpcc:
  warehouses: 10
  duration: 1m
stages: [run]
`

// with returns basePlan with old replaced by new (old must be there).
func with(t *testing.T, pairs ...string) string {
	t.Helper()
	s := basePlan
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("base plan has no %q", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// refused checks that text is refused with a problem at file:line:col
// containing want.
func refused(t *testing.T, text, want string, opts ...Options) {
	t.Helper()
	_, err := ParsePlan("test.yaml", []byte(text), opts...)
	var pe *PlanError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *PlanError with %q, got %v", want, err)
	}
	for _, pr := range pe.Problems {
		if pr.Pos.Line > 0 && strings.Contains(pr.Msg, want) {
			return
		}
	}
	t.Fatalf("want a problem at file:line:col with %q, got %v", want, trim(err))
}

func accepted(t *testing.T, text string, opts ...Options) *Plan {
	t.Helper()
	p, err := ParsePlan("test.yaml", []byte(text), opts...)
	if err != nil {
		t.Fatalf("want the plan accepted, got %v", trim(err))
	}
	return p
}

func TestBasePlanValid(t *testing.T) { accepted(t, basePlan) }

// TestDeniedSettings: settings whose value is a command, a library or an
// address are refused at their key, unless the command line allows them;
// a plan cannot allow them itself.
func TestDeniedSettings(t *testing.T) {
	for _, name := range []string{"archive_command", "restore_command", "archive_cleanup_command", "recovery_end_command",
		"ssl_passphrase_command", "shared_preload_libraries", "local_preload_libraries", "session_preload_libraries", "dynamic_library_path"} {
		t.Run(name, func(t *testing.T) {
			text := with(t, "stages:", "settings:\n  cluster:\n    "+name+": \"touch /tmp/pwned\"\nstages:")
			refused(t, text, name+" is not taken from a plan")
			p := accepted(t, text, Options{AllowSettings: []string{name}})
			if got := p.Settings.Ordered(); len(got) != 1 || got[0].Name != name {
				t.Errorf("allowed setting not kept: %v", got)
			}
			if g := p.Settings.Guarded(); len(g) != 0 {
				t.Errorf("allowed setting still guarded at configure: %v", g)
			}
			refused(t, text, "--allow-setting "+name, Options{AllowSettings: []string{"other"}})
			accepted(t, text, Options{ReadOnly: true})
		})
	}
	// Cockroach: exact names, prefixes and the rule.
	for _, name := range []string{"server.host_based_authentication.configuration", "server.oidc_authentication.provider_url", "trace.opentelemetry.collector", "external.graphite.endpoint", "cloudstorage.http.custom_ca", "enterprise.license",
		"server.some_new.sink_url", "obs.export.endpoint"} {
		if deniedWhy(Cockroach, name) == "" {
			t.Errorf("%s is not denied", name)
		}
	}
	for _, name := range []string{"kv.snapshot_rebalance.max_rate", "rocksdb.min_wal_sync_interval", "max_wal_size", "kv.range_merge.queue_enabled", "sql.stats.automatic_collection.enabled"} {
		if why := deniedWhy(Cockroach, name); why != "" {
			t.Errorf("cockroach %s denied: %s", name, why)
		}
	}
	// Through a merge key, too.
	refused(t, with(t, "stages:", "settings:\n  cluster:\n    <<: {archive_command: \"sh -c id\"}\nstages:"), "archive_command is not taken from a plan")
}

// TestDeniedSettingsByRule: names no release has yet are refused by how
// they end, without a change to any list; a harmless name that ends so is
// named with why, and ordinary tuning passes.
func TestDeniedSettingsByRule(t *testing.T) {
	for _, name := range []string{"foo_command", "bar_libraries", "x_path", "zzz_libraries", "yyy_command", "xxx_path",
		"output_plugin_libraries", "ext.plugin_dir", "archive_library", "krb_server_keyfile", "ssl_crl_dir", "extension_destdir",
		"a_filename", "log_filename", "log_directory", "data_directory", "hba_file", "jit_provider", "primary_conninfo",
		"new_decoder_modules", "listen_addresses", "stats_temp_directory"} {
		t.Run(name, func(t *testing.T) {
			if deniedWhy(Postgres, name) == "" {
				t.Fatalf("%s is not refused by the rule", name)
			}
			refused(t, with(t, "stages:", "settings:\n  cluster:\n    "+name+": \"x\"\nstages:"), name+" is not taken from a plan")
		})
	}
	for _, name := range []string{"search_path", "work_mem", "shared_buffers", "max_connections", "log_line_prefix", "log_file_mode",
		"synchronous_commit", "temp_tablespaces", "timezone_abbreviations", "checkpoint_timeout", "random_page_cost"} {
		if why := deniedWhy(Postgres, name); why != "" {
			t.Errorf("%s refused: %s", name, why)
		}
	}
}

// pgParam is one row of a real server's pg_settings, with the server's
// own verdict (PostgresCatalogueRefuses) evaluated by the server.
type pgParam struct {
	Name, Category, Desc string
	Catalogue            bool
}

// TestDeniedSettingsCoverPostgres asks a real PostgreSQL for its
// parameters. Each that names code or a place on disk is refused before
// it is applied: by its name at validation, or else by the server's own
// catalogue at configure, which the guard statement checks on this very
// server. The parameters known to run commands or load code are refused
// by both, each rule alone. Nothing here lists today's names as the
// thing tested: a release's new parameter is judged by the rules.
func TestDeniedSettingsCoverPostgres(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT name, category, short_desc, (`+PostgresCatalogueRefuses()+`) FROM pg_settings WHERE context <> 'internal'`)
	if err != nil {
		t.Fatal(err)
	}
	params, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pgParam])
	if err != nil {
		t.Fatal(err)
	}
	var version string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	byName := map[string]pgParam{}
	var catalogueOnly, guarded []string
	for _, p := range params {
		name := strings.ToLower(p.Name)
		byName[name] = p
		if p.Catalogue {
			guarded = append(guarded, name)
			if deniedWhy(Postgres, name) == "" {
				catalogueOnly = append(catalogueOnly, name)
			}
		}
	}
	t.Logf("PostgreSQL %s: %d parameters, %d refused by the catalogue; by the catalogue alone: %v", version, len(params), len(guarded), catalogueOnly)
	// Known to run a command, load code or move the server's files:
	// each rule alone refuses them, wherever this release has them.
	present := 0
	for _, name := range []string{"archive_command", "archive_cleanup_command", "restore_command", "recovery_end_command",
		"ssl_passphrase_command", "archive_library", "shared_preload_libraries", "local_preload_libraries",
		"session_preload_libraries", "dynamic_library_path", "jit_provider", "data_directory", "config_file", "hba_file",
		"ident_file", "external_pid_file", "log_directory", "log_filename", "unix_socket_directories", "ssl_key_file",
		"krb_server_keyfile", "output_plugin_libraries", "extension_destdir"} {
		p, ok := byName[name]
		if !ok {
			continue
		}
		present++
		if deniedWhy(Postgres, name) == "" {
			t.Errorf("PostgreSQL %s %s (%s: %s) is not refused by its name", version, name, p.Category, p.Desc)
		}
		if !p.Catalogue {
			t.Errorf("PostgreSQL %s %s (%s: %s) is not refused by the server's catalogue", version, name, p.Category, p.Desc)
		}
	}
	if present < 20 {
		t.Errorf("only %d of the known parameters on PostgreSQL %s: is this pg_settings?", present, version)
	}
	// The guard, run on this server: it refuses every parameter the
	// catalogue refuses, naming each, and passes ordinary tuning.
	_, err = conn.Exec(ctx, PostgresSettingsGuard(append([]string{"work_mem"}, guarded...)))
	if err == nil {
		t.Fatalf("the guard passed %v", guarded)
	}
	for _, name := range guarded {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the guard's refusal does not name %s: %v", name, err)
		}
	}
	if _, err := conn.Exec(ctx, PostgresSettingsGuard([]string{"work_mem", "search_path", "shared_buffers", "temp_tablespaces", "timezone_abbreviations", "max_connections", "no_such_parameter"})); err != nil {
		t.Errorf("the guard refused ordinary tuning: %v", err)
	}
}

// TestNumbersAreDecimal: YAML 1.1 number forms that change meaning are
// refused, saying what YAML read.
func TestNumbersAreDecimal(t *testing.T) {
	for _, tt := range []struct{ from, to, want string }{
		{"  warehouses: 10\n", "  warehouses: 010\n", `"010" is not a plain decimal number (YAML reads it as 8)`},
		{"  warehouses: 10\n", "  warehouses: 0o12\n", `"0o12" is not a plain decimal number (YAML reads it as 10)`},
		{"  warehouses: 10\n", "  warehouses: 0xA\n", `"0xA" is not a plain decimal number (YAML reads it as 10)`},
		{"  warehouses: 10\n", "  warehouses: 1_0\n", `"1_0" is not a plain decimal number`},
		{"  warehouses: 10\n", "  warehouses: +10\n", `"+10" is not a plain decimal number`},
		{"  warehouses: 10\n", "  warehouses: 1e1\n", `want a whole number, got "1e1"`},
		{"  warehouses: 10\n", "  warehouses: 10\n  ulimit: 0_1_0_2_4\n", `"0_1_0_2_4" is not a plain decimal number (YAML reads it as 532)`},
		{"stages:", "ssh: {port: 022}\nstages:", `"022" is not a plain decimal number (YAML reads it as 18)`},
		{"  - name: w1\n", "  - name: w1\n    port: 022\n", `port: "022" is not a plain decimal number`},
		{"  - name: db1\n", "  - name: db1\n    sql_port: 0x1F90\n", `sql_port: "0x1F90" is not a plain decimal number`},
		{"stages:", "preflight: {min_free_gb: 0x10}\nstages:", `"0x10" is not a plain decimal number (YAML reads it as 16)`},
		{"stages:", "settings: {cluster: {max_connections: 0100}}\nstages:", `settings.cluster.max_connections: "0100" is not a plain decimal number (YAML reads it as 64)`},
	} {
		t.Run(tt.to, func(t *testing.T) { refused(t, with(t, tt.from, tt.to), tt.want) })
	}
	// Zero padding inside a pattern is the pattern's own.
	accepted(t, with(t, "  - name: w1\n", "  - name: w[1-2]\n    port: \"22[01-02]\"\n"))
}

// TestInvisibleCharacters: bidi controls and invisible characters are
// refused in every plan string, as control characters are.
func TestInvisibleCharacters(t *testing.T) {
	for _, r := range []rune{0x202e, 0x202a, 0x2066, 0x2069, 0x200b, 0x200d, 0x200f, 0x2060, 0xfeff, 0x00ad, 0x061c, 0xe0041, 0x034f, 0xfe0f} {
		c := string(r)
		for _, tt := range []struct{ from, to string }{
			{"name: t\n", "name: \"t" + c + "\"\n"},
			{"version: 1\n", "version: 1\ndescription: \"a" + c + "b\"\n"},
			{"stages:", "settings: {cluster: {work_mem: \"64MB" + c + "\"}}\nstages:"},
			{"  duration: 1m\n", "  duration: 1m\n  extra_flags: [\"--x" + c + "\"]\n"},
		} {
			refused(t, with(t, tt.from, tt.to), "character U+")
		}
	}
	accepted(t, with(t, "version: 1\n", "version: 1\ndescription: \"Größe, 東京, café\"\n"))
}

// TestPlausiblePlans: merge keys, bare IPv6 and FQDNs with a trailing dot
// are accepted; a merge does not loosen strictness.
func TestPlausiblePlans(t *testing.T) {
	p := accepted(t, with(t, "workload:\n  - name: w1\n", "workload:\n  - &h {name: w0, dir: bench, user: ubuntu}\n  - name: w1\n    <<: *h\n    user: admin\n"))
	if w := p.Workload[1]; w.Name != "w1" || w.Dir != "bench" || w.User != "admin" {
		t.Errorf("merge: dir %q user %q, want bench and admin (own keys win)", w.Dir, w.User)
	}
	p = accepted(t, with(t, "workload:\n  - name: w1\n", "workload:\n  - &a {name: wa, dir: a}\n  - &b {name: wb, dir: b, user: bob}\n  - name: w1\n    <<: [*a, *b]\n"))
	if w := p.Workload[2]; w.Name != "w1" || w.Dir != "a" || w.User != "bob" {
		t.Errorf("merge list: dir %q user %q, want a (earlier wins) and bob", w.Dir, w.User)
	}
	refused(t, with(t, "  duration: 1m\n", "  duration: 1m\n  import: &i {hsots: all}\ncrud:\n  <<: *i\n"), `crud: unknown field "hsots"`)
	refused(t, with(t, "workload:\n  - name: w1\n", "workload:\n  - name: w1\n    <<: 5\n"), "a merge key (<<) takes a mapping")
	accepted(t, with(t, "    addr: 127.0.0.2\n", "    addr: \"::1\"\n"))
	accepted(t, with(t, "    addr: 127.0.0.2\n", "    addr: \"fe80::1:2\"\n"))
	accepted(t, with(t, "    addr: 127.0.0.2\n", "    addr: db1.example.com.\n"))
	accepted(t, with(t, "  - name: w1\n", "  - name: w1\n    ssh: w1.example.com.\n"))
	refused(t, with(t, "    addr: 127.0.0.2\n", "    addr: \"::1::2\"\n"), "is not a host name or address")
	refused(t, with(t, "    addr: 127.0.0.2\n", "    addr: \"fe80::1%eth0\"\n"), "is not a host name or address")
	refused(t, with(t, "    addr: 127.0.0.2\n", "    addr: \"db1..\"\n"), "is not a host name or address")
}

// TestValidUntilTheEnd: what the run would refuse (or fail on) is refused
// at validation.
func TestValidUntilTheEnd(t *testing.T) {
	for _, tt := range []struct {
		name  string
		pairs []string
		want  string
	}{
		{"wait NaN", []string{"  duration: 1m\n", "  duration: 1m\n  wait: \"NaN\"\n"}, "tpcc.wait: want true, false or a factor"},
		{"wait Inf", []string{"  duration: 1m\n", "  duration: 1m\n  wait: \"+Inf\"\n"}, "tpcc.wait: want true, false or a factor"},
		{"wait negative", []string{"  duration: 1m\n", "  duration: 1m\n  wait: \"-0.5\"\n"}, "tpcc.wait: want true, false or a factor"},
		{"wait huge", []string{"  duration: 1m\n", "  duration: 1m\n  wait: \"1e300\"\n"}, "tpcc.wait: want true, false or a factor"},
		{"active below partitions", []string{"  duration: 1m\n", "  duration: 1m\n  partitions: 4\n  active_warehouses: 3\n"}, "each partition needs at least one active warehouse"},
		{"sweep from 1", []string{"  duration: 1m\n", "  duration: 1m\n  partitions: 2\n  sweep: {flag: active-warehouses, values: [1, 2, 4]}\n"}, "1 active warehouses for 2 partitions"},
		{"workers with wait", []string{"  duration: 1m\n", "  duration: 1m\n  workers: 7\n"}, "the driver would refuse the run on workload host w1"},
		{"crud table a.b.c", []string{"stages:", "benchmark: crud\ncrud: {table: a.b.c}\nstages:"}, `crud.table: table "a.b.c": want name or schema.name`},
		{"long name", []string{"name: t\n", "name: " + strings.Repeat("n", 300) + "\n"}, "name: want at most 100"},
		{"long database", []string{"  duration: 1m\n", "  duration: 1m\n  database: " + strings.Repeat("d", 64) + "\n"}, "is not a plain database name"},
		{"long string", []string{"  duration: 1m\n", "  duration: 1m\n  extra_flags: [\"--x=" + strings.Repeat("x", 130<<10) + "\"]\n"}, "tpcc.extra_flags[0]: 133124 bytes; at most 4096"},
		{"long setting", []string{"stages:", "settings: {cluster: {work_mem: \"" + strings.Repeat("1", 5000) + "\"}}\nstages:"}, "5000 bytes; at most 4096"},
		{"long flag list", []string{"  duration: 1m\n", "  duration: 1m\n  extra_flags: [" + strings.Repeat("\"--x="+strings.Repeat("x", 4000)+"\", ", 20) + "\"--y\"]\n"}, "tpcc.extra_flags: 80104 bytes of flags; at most 65536"},
		{"long host name", []string{"    addr: 127.0.0.2\n", "    addr: " + strings.Repeat("a", 400) + "\n"}, "400 bytes; at most"},
	} {
		t.Run(tt.name, func(t *testing.T) { refused(t, with(t, tt.pairs...), tt.want) })
	}
	accepted(t, with(t, "  duration: 1m\n", "  duration: 1m\n  wait: \"0.5\"\n"))
	accepted(t, with(t, "  duration: 1m\n", "  duration: 1m\n  partitions: 2\n  sweep: {flag: active-warehouses, values: [2, 4]}\n"))
	accepted(t, with(t, "stages:", "benchmark: crud\ncrud: {table: s.t}\nstages:"))
}

// TestExpansionWorkBounded: plans that stand for gigabytes (before this
// bound: 3.3 GB allocated by the first, 15 GB by compiling the second)
// are refused at validation after allocating little, because the work is
// counted before it is done. Allocated bytes are measured, not time.
func TestExpansionWorkBounded(t *testing.T) {
	hostBomb := with(t, "workload:\n  - name: w1\n", "workload:\n  - &h {name: \"w[0-9999]\", dir: \""+strings.Repeat("d", 1000)+"[0-9999]\"}\n"+strings.Repeat("  - *h\n", 39))
	compileBomb := with(t, "  - name: db1\n    addr: 127.0.0.2\n", "  - name: \"db[0001-1000]\"\n    addr: \"a-long-node-address-name-[0001-1000].rack.example.com\"\n",
		"  - name: w1\n", "  - name: \"w[0001-1000]\"\n", "  duration: 1m\n", "  duration: 1m\n  repeat: 20\n")
	long := strings.Repeat("x", 4000)
	stringBomb := with(t, "  duration: 1m\n", "  duration: 1m\n  extra_flags: [&s \""+long+"\", "+strings.Repeat("*s, ", 2000)+"*s]\n")
	mergeBomb := with(t, "workload:\n  - name: w1\n", "workload:\n  - &p {name: w, partitions: ["+strings.Repeat("0,", 20000)+"0]}\n"+strings.Repeat("  - {name: w, <<: *p}\n", 5000))
	for _, tt := range []struct{ name, plan, want string }{
		{"aliased host patterns", hostBomb, "expand to more than 10000 hosts or 8 MiB"},
		{"compiled steps", compileBomb, "the plan compiles to about"},
		{"aliased strings", stringBomb, "aliases repeat more than 1048576 bytes of text"},
		{"merged lists", mergeBomb, "aliases expand the plan by more than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ParsePlan("test.yaml", []byte(tt.plan))
			runtime.ReadMemStats(&after)
			if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
				t.Errorf("refusing it allocated %d MiB; want < 64", d>>20)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want %q, got %v", tt.want, trim(err))
			}
		})
	}
}

// TestHostileCorpus: every plan of testdata/hostile whose first line says
// "# expect: reject TEXT" is refused by validation with TEXT at a
// file:line:col, allocating little (cmd/benchrig's TestHostilePlans runs
// the same corpus through `benchrig run` against the loopback lab). The
// UTF-16 plan is left to that test.
func TestHostileCorpus(t *testing.T) {
	t.Setenv("HOSTILE_LICENSE", "crl-0-hostile")
	files, _ := filepath.Glob("testdata/hostile/*.yaml")
	// A FIFO for the plans that name one as a local file: opening it
	// without O_NONBLOCK would hang validation.
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("@MARKER@", "/nonexistent/marker", "@SSHCONFIG@", "/nonexistent/ssh_config",
		"@KNOWNHOSTS@", "/nonexistent/known_hosts", "@PORT@", "5432", "@PREFIX@", "benchrig-hostile", "@PGBIN@", "/usr/lib/postgresql/15/bin",
		"@HOSTILEDIR@", dir)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(string(data), "\ufeff"), "\n")
		first, _, _ = strings.Cut(first, "\r") // the CR-only plan
		want, ok := strings.CutPrefix(first, "# expect: reject ")
		if !ok {
			continue
		}
		want = vars.Replace(want)
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := ParsePlan(f, []byte(vars.Replace(string(data))))
			runtime.ReadMemStats(&after)
			if d := after.TotalAlloc - before.TotalAlloc; d > maxRefusalAlloc {
				t.Errorf("refusing it allocated %d MiB", d>>20)
			}
			var pe *PlanError
			if !errors.As(err, &pe) {
				t.Fatalf("want a *PlanError, got %v", err)
			}
			for _, pr := range pe.Problems {
				if pr.Pos.Line > 0 && strings.Contains(pr.Msg, want) {
					return
				}
			}
			t.Errorf("want a problem at file:line:col with %q, got %v", want, trim(err))
		})
	}
}
