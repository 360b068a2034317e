# lib.sh: the set-up docs/measure's scripts share; they source it, nothing
# runs it. One throwaway PostgreSQL per measurement directory, run as the
# user benchrig (as in the tests), on 127.0.0.1:$PORT with its socket in
# the directory, and the measurements every script takes of it. The peers
# (go-tpc, HammerDB, PgBouncer) are built by peers.sh, outside the
# repository.
#
# The server's configuration is the same for every script unless the
# environment says otherwise, and every start logs the one it runs with:
#   SHARED_BUFFERS   shared_buffers (default 256MB; the W=4 database does not
#                    fit in it; 1280MB holds it whole)
#   MAX_CONNECTIONS  max_connections (default 100)
#   PGBIN            the server's programs (default /usr/lib/postgresql/15/bin)
# A script may add settings of its own: pg_start -c fsync=off.
#
# The caller sets PORT, then calls measure_dir DIR LOGFILE before anything
# else; D is the directory (absolute), log appends to DIR/LOGFILE.

PG=${PGBIN:-/usr/lib/postgresql/15/bin}
SHARED_BUFFERS=${SHARED_BUFFERS:-256MB}
MAX_CONNECTIONS=${MAX_CONNECTIONS:-100}

# measure_dir DIR LOGFILE: the measurement directory, owned by the server's
# user; the working directory from then on.
measure_dir() {
	D=$(realpath -m "$1")
	MEASURE_LOG=$D/$2
	mkdir -p "$D" && chown benchrig "$D" && cd "$D" || exit 1
}

# log MESSAGE...: a line with the time and the load average, on stdout and
# in the log file.
log() { echo "$(date -u +%T) $* load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$MEASURE_LOG"; }

# sql ARGS...: psql as the superuser on the measurement's server.
sql() { psql -q -h 127.0.0.1 -p "$PORT" -U postgres "$@"; }

# pg_url DB: the URL the drivers connect to.
pg_url() { echo "postgres://postgres@127.0.0.1:$PORT/$1?sslmode=disable"; }

# pg_start [-c NAME=VALUE]...: initdb DIR/pg on first use, start the
# server with the shared configuration and the given settings (a later -c
# wins), and log the configuration it runs with.
pg_start() {
	if [ ! -f "$D/pg/PG_VERSION" ]; then
		mkdir -p "$D/pg" && chown benchrig "$D/pg" && chmod 700 "$D/pg" || return 1
		runuser -u benchrig -- "$PG/initdb" -D "$D/pg" -U postgres -A trust >/dev/null || return 1
	fi
	runuser -u benchrig -- "$PG/pg_ctl" -D "$D/pg" -l "$D/pg.log" \
		-o "-p $PORT -c shared_buffers=$SHARED_BUFFERS -c max_connections=$MAX_CONNECTIONS -c listen_addresses=127.0.0.1 -c unix_socket_directories=$D $*" \
		-w start >/dev/null || return 1
	log "server: $(pg_config_line)"
}

# pg_config_line: the running server's configuration, one line (what a
# measurement's figures were measured in).
pg_config_line() {
	sql -d postgres -tAc "SELECT 'PostgreSQL ' || current_setting('server_version')
		|| ', shared_buffers ' || current_setting('shared_buffers') || ', fsync ' || current_setting('fsync')
		|| ', synchronous_commit ' || current_setting('synchronous_commit')
		|| ', max_connections ' || current_setting('max_connections')"
}

# pg_running: whether DIR's server is up (a rerun may reuse it).
pg_running() { runuser -u benchrig -- "$PG/pg_ctl" -D "$D/pg" status >/dev/null 2>&1; }

# pg_stop: stop DIR's server (fast: sessions are cut).
pg_stop() { runuser -u benchrig -- "$PG/pg_ctl" -D "$D/pg" -m fast -w stop >/dev/null; }

# db_exists NAME
db_exists() { sql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$1'" | grep -q 1; }

# pg_fresh NAME TEMPLATE: NAME as a fresh copy of the loaded TEMPLATE, and
# a checkpoint, so that no run starts with another's dirty pages.
pg_fresh() { sql -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1 TEMPLATE $2" -c checkpoint; }

# neworders DB: New-Orders so far, counted by the server: sum(d_next_o_id)
# of district, which every TPC-C schema has (a rolled-back New-Order does
# not advance it).
neworders() { psql -h 127.0.0.1 -p "$PORT" -U postgres -d "$1" -tAc "SELECT sum(d_next_o_id) FROM district"; }

# server_ticks: the server's CPU so far in clock ticks (getconf CLK_TCK a
# second): the postmaster's utime+stime+cutime+cstime (the children it
# reaped) plus its live children's utime+stime. The fields are counted
# after the command name's closing parenthesis, which may hold spaces.
server_ticks() {
	local pm
	pm=$(head -1 "$D/pg/postmaster.pid")
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v pm="$pm" '
		{ pid = $1; sub(/^.*\) /, "") }
		pid == pm { s += $12 + $13 + $14 + $15; next }
		$2 == pm { s += $12 + $13 }
		END { print s + 0 }'
}
