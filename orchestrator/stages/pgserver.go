package stages

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// What a PostgreSQL cluster of N nodes needs of its servers, settled from
// the plan before anything starts: the start stage writes it into every
// node's benchrig.conf (the primary's before any standby connects; a
// hot standby refuses to run with max_connections, max_wal_senders and
// their kin below its primary's, so every node gets the same values), and
// preflight refuses, with the reason, a plan whose own settings a server
// or pg_basebackup would refuse.

// pgStartConcurrency bounds the standbys the start stage makes at once:
// each copies the whole primary (pg_basebackup), so the primary's disk and
// link carry that many copies at a time; ssh.concurrency bounds it too.
const pgStartConcurrency = 8

// PostgreSQL's defaults and limits (runtime-config-replication,
// runtime-config-connection; MAX_BACKENDS in src/include/postmaster/
// postmaster.h, 2^18-1).
const (
	pgMaxWalSenders       = 10
	pgMaxReplicationSlots = 10
	pgAutovacuumWorkers   = 3
	pgWorkerProcesses     = 8
	pgMaxBackends         = 1<<18 - 1
	pgWalSegmentMB        = 16 // initdb's --wal-segsize default
	// pgAdminConns is what the start stage adds to the run's connections
	// when it sizes max_connections itself: benchrig's own psql steps and
	// an operator's session (the run's user is a superuser, which may take
	// the superuser_reserved_connections slots too).
	pgAdminConns = 5
)

// pgSetting is one line the start stage writes into benchrig.conf.
type pgSetting struct {
	Name  string
	Value int
	// Why says where the value comes from, for the dry-run.
	Why string
}

// Line is the setting as benchrig.conf holds it: a constant name and a
// number, never text from the plan.
func (s pgSetting) Line() string { return s.Name + " = " + strconv.Itoa(s.Value) }

// pgServer is the sizing of every node's server.
type pgServer struct {
	// Standbys are started at most Limit at a time, after the primary.
	Standbys, Limit int
	Settings        []pgSetting
	// Refusals are what a server or pg_basebackup would refuse in the
	// plan's own settings, found before anything runs (preflight fails the
	// primary's row on them).
	Refusals []string
}

// pgServerFor sizes the servers of plan p whose run opens conns
// connections to the primary (0: unknown, no run stage).
func pgServerFor(p *plan.Plan, conns int) pgServer {
	set := map[string]string{}
	for _, s := range p.Settings.Ordered() {
		set[s.Name] = s.Value // a later value overrides, as ALTER SYSTEM does
	}
	sv := pgServer{Standbys: max(len(p.Nodes)-1, 0)}
	sv.Limit = min(pgStartConcurrency, max(p.SSH.Concurrency, 1), max(sv.Standbys, 1))
	// integer reads the plan's value of name: ok is false when the plan
	// leaves it to benchrig; a value the server would not read as an
	// integer is a refusal.
	integer := func(name string) (v int, ok bool) {
		text, given := set[name]
		if !given {
			return 0, false
		}
		v, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil || v < 0 {
			sv.Refusals = append(sv.Refusals, fmt.Sprintf("%s %q (settings): PostgreSQL refuses it at start, it takes a whole number", name, text))
			return 0, false
		}
		return v, true
	}
	// sized settles name: the plan's value when it gives one (refused
	// below need), else the larger of PostgreSQL's default and need.
	sized := func(name string, need, dflt int, needWhy string) int {
		if v, ok := integer(name); ok {
			if v < need {
				sv.Refusals = append(sv.Refusals, fmt.Sprintf("%s %d (settings) is below the %d the start stage needs (%s): set %s: %d or more under settings.cluster, or leave it out and benchrig sets it", name, v, need, needWhy, name, need))
			}
			sv.Settings = append(sv.Settings, pgSetting{name, v, "the plan's settings"})
			return v
		}
		v := max(dflt, need)
		why := fmt.Sprintf("the default; needs %d: %s", need, needWhy)
		if v > dflt {
			why = fmt.Sprintf("needs %d: %s", need, needWhy)
		}
		sv.Settings = append(sv.Settings, pgSetting{name, v, why})
		return v
	}
	senders, slots := 0, 0
	if sv.Standbys > 0 {
		// A standby streams through one WAL sender; while it is made,
		// pg_basebackup -X stream holds two (the copy and its WAL stream)
		// and a temporary replication slot.
		senders, slots = sv.Standbys+sv.Limit, sv.Limit
	}
	walSenders := sized("max_wal_senders", senders, pgMaxWalSenders,
		fmt.Sprintf("%d standbys streaming, %d copying at once with 2 each", sv.Standbys, sv.Limit))
	sized("max_replication_slots", slots, pgMaxReplicationSlots,
		fmt.Sprintf("a temporary slot for each of %d copies at once", sv.Limit))
	// A plan's max_connections below the run's need is judged per node by
	// preflight's connection check (judgeConns), not refused here again.
	maxConns, given := integer("max_connections")
	if given {
		sv.Settings = append(sv.Settings, pgSetting{"max_connections", maxConns, "the plan's settings"})
	} else {
		maxConns = max(pgMaxConnections, conns+pgAdminConns)
		why := "the default"
		if conns > 0 {
			why = fmt.Sprintf("needs %d: the run's %d to the primary, %d for benchrig's own steps and an operator", conns+pgAdminConns, conns, pgAdminConns)
			if maxConns == pgMaxConnections {
				why = "the default; " + why
			}
		}
		sv.Settings = append(sv.Settings, pgSetting{"max_connections", maxConns, why})
	}
	if sv.Standbys > 1 {
		// pg_basebackup takes its temporary slot only after the copy has
		// begun; meanwhile the other copies' fast checkpoints and segment
		// switches may recycle the segment it starts from ("requested WAL
		// segment ... has already been removed", seen with 8 copies at
		// once on 12 nodes). Keeping the last two segments per copy under
		// way covers that window. Written by the start stage only: a
		// plan's own wal_keep_size (ALTER SYSTEM at configure) overrides it.
		sv.Settings = append(sv.Settings, pgSetting{"wal_keep_size", 2 * sv.Limit * pgWalSegmentMB,
			fmt.Sprintf("MB, two %d MB WAL segments for each of %d copies at once: a copy starts before it holds its slot", pgWalSegmentMB, sv.Limit)})
	}
	// What the postmaster checks as it starts.
	reserved := pgSuperuserReserve
	if v, ok := integer("superuser_reserved_connections"); ok {
		reserved = v
	}
	if v, ok := integer("reserved_connections"); ok {
		reserved += v
	}
	if reserved >= maxConns {
		sv.Refusals = append(sv.Refusals, fmt.Sprintf("max_connections %d is not above the %d reserved connections (superuser_reserved_connections, reserved_connections): PostgreSQL refuses to start", maxConns, reserved))
	}
	workers, autovac := pgWorkerProcesses, pgAutovacuumWorkers
	if v, ok := integer("max_worker_processes"); ok {
		workers = v
	}
	if v, ok := integer("autovacuum_max_workers"); ok {
		autovac = v
	}
	if n := maxConns + autovac + 1 + workers + walSenders; n > pgMaxBackends {
		sv.Refusals = append(sv.Refusals, fmt.Sprintf("max_connections + autovacuum_max_workers + 1 + max_worker_processes + max_wal_senders is %d, above PostgreSQL's %d server processes: it refuses to start", n, pgMaxBackends))
	}
	if v, ok := set["wal_level"]; ok && strings.TrimSpace(v) == "minimal" {
		sv.Refusals = append(sv.Refusals, fmt.Sprintf("wal_level minimal (settings): PostgreSQL refuses to start with max_wal_senders %d above 0 (WAL streaming needs replica or logical), and the standbys stream: leave wal_level out", walSenders))
	}
	return sv
}

// Note says, for the start stage, how the nodes start and with what.
func (sv pgServer) Note() string {
	var b strings.Builder
	if sv.Standbys > 0 {
		fmt.Fprintf(&b, "postgres: the primary first, then its %d standbys, %d at a time; ", sv.Standbys, sv.Limit)
	} else {
		b.WriteString("postgres: ")
	}
	b.WriteString("every node starts with")
	for i, s := range sv.Settings {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s (%s)", s.Line(), s.Why)
	}
	return b.String()
}

// server sizes the plan's servers once per compile, from the run's needs
// as preflight computes them (needsOf).
func (f postgresFlavor) server() pgServer {
	if f.c == nil {
		return pgServerFor(f.p, 0)
	}
	if f.c.pg == nil {
		conns := 0
		if n, ok := f.c.w.(needer); ok {
			_, nodes, _ := f.c.needsOf(n)
			conns = nodes[f.primary().Name].Conns
		}
		sv := pgServerFor(f.p, conns)
		f.c.pg = &sv
	}
	return *f.c.pg
}

// refusals: preflight fails the primary on what its server would refuse.
func (f postgresFlavor) refusals() map[string][]string {
	if len(f.p.Nodes) == 0 {
		return nil
	}
	r := f.server().Refusals
	if len(r) == 0 {
		return nil
	}
	return map[string][]string{f.primary().Name: r}
}
