package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"

	"fmt"
	"strconv"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// postgresFlavor runs the same stages on PostgreSQL: the first node is the
// primary, the others streaming standbys (pg_basebackup), each with its
// rack recorded as the custom setting benchrig.rack. It is the flavor that
// runs on this machine, for the demo and the end-to-end tests.
type postgresFlavor struct {
	p *plan.Plan
	// c is the compiler, whose workload's needs size the servers (nil when
	// only the plan's addresses are wanted: Show).
	c *compiler
}

func (f postgresFlavor) bindir() string { return f.p.Binaries.Database.Host }

func (f postgresFlavor) primary() plan.Host { return f.p.Nodes[0] }

func (f postgresFlavor) installNode(st *Stage, h plan.Host) {
	// The programs are the host's own (binaries.database.host): check
	// that they are there and say which version they are.
	st.add(Step{Host: h.Name, Kind: Exec, What: "check PostgreSQL programs", Idempotent: true,
		Cmd: remote.Cmd{Args: []string{f.bindir() + "/pg_ctl", "--version"}}})
}

// pgStartScript creates (initdb, or pg_basebackup from the primary for a
// standby) and starts one node; for a node already running it only waits
// until the node accepts connections (a resumed run finds the node an
// interrupted attempt started, perhaps not yet ready).
// Every value is a positional parameter; conf values are written quoted.
// The parameters after the eighth are whole lines of benchrig.conf, each
// a constant setting name and a number (pgSetting.Line): the sizing that
// must hold from the server's first start (pgServerFor), on the primary
// before any standby connects and on every standby alike.
//
// pg_ctl itself builds a command line for /bin/sh from -D, -l and the path
// of its own directory (inside double quotes, where $(...) still runs), so
// those three values are never free text: validation holds binaries.*.host,
// nodes[].store and nodes[].dir to safePath (letters, digits, . _ + - /,
// no leading '-'), which means the same inside double quotes, single
// quotes and as a word. No value goes into pg_ctl's -o at all: settings
// go into benchrig.conf, written by this script from its parameters.
const pgStartScript = `set -eu
bin=$1 data=$2 dir=$3 addr=$4 port=$5 rack=$6 paddr=$7 pport=$8
shift 8
mkdir -p -- "$dir"
# An interrupted attempt whose shell still runs (the orchestrator was
# killed or lost its connection while initdb, pg_basebackup or pg_ctl
# start went on) is let finish first: removing its partial directory under
# it fails, and two pg_ctl starts on one data directory race (the loser
# sees no server yet, starts its own and fails on the lock file). It
# renames and starts the node itself; this attempt then finds it running.
pid=$(cat "$dir/start.pid" 2>/dev/null || :)
case $pid in ''|*[!0-9]*) pid= ;; esac
i=0
while [ -n "$pid" ] && [ "$pid" != "$$" ] && kill -0 "$pid" 2>/dev/null; do
  i=$((i+1))
  if [ "$i" -ge 3000 ]; then echo "$data: an earlier start attempt (pid $pid) still runs after 300s" >&2; exit 1; fi
  sleep 0.1
done
echo "$$" >"$dir/start.pid"
# Gone once this attempt ends, so that a later one never waits on a
# recycled pid; a shell killed outright leaves it, naming a dead process.
trap 'rm -f -- "$dir/start.pid"' EXIT
if "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  # started by an interrupted attempt, perhaps not ready: wait as pg_ctl -w would
  i=0
  until "$bin/pg_isready" -q -h "$addr" -p "$port"; do
    i=$((i+1))
    if [ "$i" -ge 1200 ]; then echo "$data: running, but no connections accepted within 120s" >&2; exit 1; fi
    sleep 0.1
  done
  echo "already running: $data"; exit 0
fi
if [ ! -f "$data/PG_VERSION" ]; then
  # Made under a name of this attempt's own and renamed into place: an
  # attempt killed half-way (the orchestrator killed, the connection
  # lost) leaves no half-made data directory for the next to start.
  rm -rf -- "$data".partial.*
  part=$data.partial.$$
  if [ -z "$paddr" ]; then
    "$bin/initdb" -D "$part" --auth=trust -E UTF8 --locale=C >"$dir/initdb.log"
    echo "benchrig: made by initdb" >"$part/` + OwnedMarker + `"
    echo "host all,replication all 0.0.0.0/0 trust" >>"$part/pg_hba.conf"
    echo "host all,replication all ::/0 trust" >>"$part/pg_hba.conf"
  else
    "$bin/pg_basebackup" -h "$paddr" -p "$pport" -D "$part" -R -X stream -c fast
  fi
  mv -T -- "$part" "$data"
fi
{
  echo "# written by benchrig start"
  echo "listen_addresses = '$addr'"
  echo "port = $port"
  echo "unix_socket_directories = '$(cd "$dir" && pwd)'"
  echo "benchrig.rack = '$rack'"
  echo "wal_level = replica"
  echo "hot_standby = on"
  for line in "$@"; do printf '%s\n' "$line"; done
} >"$data/benchrig.conf"
grep -q "^include_if_exists = 'benchrig.conf'" "$data/postgresql.conf" || echo "include_if_exists = 'benchrig.conf'" >>"$data/postgresql.conf"
"$bin/pg_ctl" -D "$data" -l "$dir/postgres.log" -w -t 120 start`

func (f postgresFlavor) startCmd(h plan.Host, bindir string) remote.Cmd {
	paddr, pport := "", ""
	if h.Name != f.primary().Name {
		paddr, pport = f.primary().Addr, strconv.Itoa(f.primary().SQLPort)
	}
	args := []string{"sh", "-c", pgStartScript, "sh",
		bindir, h.Store, h.Dir, h.Addr, strconv.Itoa(h.SQLPort), strconv.Itoa(max(h.Rack, 0)), paddr, pport}
	for _, s := range f.server().Settings {
		args = append(args, s.Line())
	}
	return remote.Cmd{Args: args}
}

// start brings up the primary, then the standbys (which copy it) in
// parallel, at most pgServer.Limit at a time: every WAL sender and slot
// they take was sized into the primary's first start.
func (f postgresFlavor) start(st *Stage) {
	sv := f.server()
	st.Notes = append(st.Notes, sv.Note())
	for i, h := range f.p.Nodes {
		if i == 1 {
			st.then()
			st.Limit = sv.Limit
		}
		st.add(Step{Host: h.Name, Kind: Exec, What: "start node", Cmd: f.startCmd(h, f.bindir())})
	}
}

// psql runs statements on node h, each as its own -c (ALTER SYSTEM must
// not run inside a transaction block), stopping at the first error.
func (f postgresFlavor) psql(h plan.Host, db string, stmts ...string) remote.Cmd {
	args := []string{f.bindir() + "/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1",
		"-h", h.Addr, "-p", strconv.Itoa(h.SQLPort), "-d", db}
	for _, s := range stmts {
		args = append(args, "-c", s)
	}
	return remote.Cmd{Args: args}
}

// standbysStreaming fails until every standby streams and has replayed
// everything the primary wrote.
const standbysStreaming = `SELECT 1 / (CASE WHEN
 (SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND replay_lsn = pg_current_wal_lsn()) >= %d
 THEN 1 ELSE 0 END)`

func (f postgresFlavor) waitStandbys(st *Stage, timeout time.Duration) {
	if len(f.p.Nodes) < 2 {
		return
	}
	n := f.primary()
	st.add(Step{Host: n.Name, Kind: Wait, What: "wait for standbys to catch up",
		Poll: time.Second, Timeout: timeout, Settle: 2,
		Cmd: f.psql(n, "postgres", fmt.Sprintf(standbysStreaming, len(f.p.Nodes)-1))})
}

// createDB creates the benchmark database unless it exists. A createdb
// that fails because the database appeared meanwhile succeeded: an
// interrupted attempt's createdb, still running when a resumed run looked,
// made it (its commit is what the second one's unique key waited for).
const createDB = `set -eu
bin=$1 addr=$2 port=$3 db=$4
# psql interpolates :'db' (quoted as a literal) in its input, not in -c.
exists() {
  [ "$(echo "SELECT 1 FROM pg_database WHERE datname = :'db'" | "$bin/psql" -X -tAq -v ON_ERROR_STOP=1 -h "$addr" -p "$port" -d postgres -v db="$db")" = 1 ]
}
if exists; then echo "database $db exists"; exit 0; fi
"$bin/createdb" -h "$addr" -p "$port" -- "$db" && exit 0
if exists; then echo "database $db exists (made meanwhile by an interrupted attempt)"; exit 0; fi
exit 1`

func (f postgresFlavor) init(st *Stage) {
	n := f.primary()
	st.add(Step{Host: n.Name, Kind: Exec, What: "create database " + f.p.TPCC.Database, Idempotent: true,
		Cmd: remote.Cmd{Args: []string{"sh", "-c", createDB, "sh", f.bindir(), n.Addr, strconv.Itoa(n.SQLPort), f.p.TPCC.Database}}})
	f.waitStandbys(st, 5*time.Minute)
}

// configure applies the settings with ALTER SYSTEM on every node (the
// file it writes is per server) and reloads them. The server judges them
// first (plan.PostgresSettingsGuard): a parameter its own catalogue says
// names code or a place on disk stops the step before any ALTER SYSTEM,
// whatever its name, unless the operator allowed it. The start stage
// needs no such guard: it writes only benchrig's own sizing, constant
// names with numbers (pgSetting.Line), never a plan's setting.
func (f postgresFlavor) configure(st *Stage) {
	if f.p.License != nil {
		st.Notes = append(st.Notes, "postgres: no licence to set, license skipped")
	}
	var stmts []string
	if names := f.p.Settings.Guarded(); len(names) > 0 {
		stmts = append(stmts, plan.PostgresSettingsGuard(names))
	}
	for _, kv := range f.p.Settings.Ordered() {
		stmts = append(stmts, fmt.Sprintf("ALTER SYSTEM SET %s = %s", kv.Name, sqlLiteral(kv.Value)))
	}
	if len(f.p.Settings.Ordered()) == 0 {
		return
	}
	stmts = append(stmts, "SELECT pg_reload_conf()")
	for _, h := range f.p.Nodes {
		st.add(Step{Host: h.Name, Kind: Exec, What: "apply settings", Idempotent: true, // ALTER SYSTEM SET, reload
			Cmd: f.psql(h, "postgres", stmts...)})
	}
}

func (f postgresFlavor) urls() []string {
	n := f.primary()
	return []string{remote.PostgresURL(n.User, n.Addr, n.SQLPort, f.p.TPCC.Database, sslDisable)}
}

// runURLs: only the primary takes writes.
func (f postgresFlavor) runURLs(plan.Host) []string { return f.urls() }

// initFlags: PostgreSQL partitions declaratively when the tables are
// created, so the partition count goes to `tpcc init`.
func (f postgresFlavor) initFlags() []string {
	var fl []string
	if f.p.TPCC.Partitions > 0 {
		fl = append(fl, "--partitions", strconv.Itoa(f.p.TPCC.Partitions))
	}
	if f.p.TPCC.FillFactor > 0 {
		fl = append(fl, "--fillfactor", strconv.Itoa(f.p.TPCC.FillFactor))
	}
	return fl
}

// partition: the tables were created partitioned by warehouse range;
// what is left is the recipe's wait, here for the standbys to replay the
// load.
func (f postgresFlavor) partition(st *Stage, _ *compiler) {
	st.Notes = append(st.Notes, "postgres: tables were partitioned by warehouse range at import (tpcc init --partitions)")
	f.waitStandbys(st, time.Hour)
}

// stopScript stops a node if it runs.
const pgStopScript = `set -eu
bin=$1 data=$2
if "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then "$bin/pg_ctl" -D "$data" -m fast -w -t 300 stop; else echo "not running: $data"; fi`

// swap restarts every node on the swap programs, one at a time, standbys
// first so the primary is away for the shortest time.
func (f postgresFlavor) swap(st *Stage) {
	newBin := f.p.Binaries.Swap.Host
	order := append(append([]plan.Host(nil), f.p.Nodes[1:]...), f.p.Nodes[0])
	for _, h := range order {
		st.Steps = append(st.Steps,
			Step{Host: h.Name, Kind: Exec, What: "stop node", Idempotent: true, // stops only a running server
				Cmd: remote.Cmd{Args: []string{"sh", "-c", pgStopScript, "sh", f.bindir(), h.Store}}},
			Step{Host: h.Name, Kind: Exec, What: "start node on the swap programs", Cmd: f.startCmd(h, newBin)},
			Step{Host: h.Name, Kind: Wait, What: "wait for the node", Poll: time.Second, Timeout: 5 * time.Minute, Settle: 1,
				Cmd: f.psql(h, "postgres", "SELECT 1")},
		)
	}
}
