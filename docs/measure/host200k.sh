#!/bin/bash
# host200k.sh: one workload host of the 100k recipe, measured here
# (tpcc.BenchmarkHost200k). workload1 of plans/tpcc-100k.yaml drives
# 222,210 terminals and, with the workload profile, 200,070 connections
# to 81 nodes (2,470 each); pipelined, 5,589. The nodes are stood in by
# 81 PgBouncers (transaction pooling, 2 server connections each) on
# 127.0.1.1 .. 127.0.1.81 port 6432 (all of 127.0.0.0/8 is loopback on
# Linux) in front of one PostgreSQL holding 4 warehouses, onto which the
# terminals' homes are folded. The benchmark runs once per profile and
# this script prints its figures as a table.
#
# Usage (as root; PostgreSQL and PgBouncer run as the user benchrig, as
# in the tests):
#   PGBOUNCER=/path/to/pgbouncer docs/measure/host200k.sh /tmp/h200k
# Named prepared statements through transaction pooling need PgBouncer
# >= 1.21 (max_prepared_statements). Debian 12's is 1.18: build a newer
# one outside this repository (`docs/measure/peers.sh pgbouncer`: 1.25.2;
# it is never committed). With an
# older one the script falls back to --method noprepare (unnamed
# statements: no prepared statement is kept on any connection, so the
# per-connection figure is lower than a real run's) and says so.
#
# This machine's hard open-files limit (ulimit -Hn) is 20,000, so the
# benchmark splits the host's connections over processes of at most
# 18,000 (BENCHRIG_HOST200K_MAXCONNS) each, started together; one
# process on a real host with `ulimit -n 200500` is their sum minus
# (N-1) process baselines (see the benchmark's doc). Each PgBouncer
# holds ~2,470 clients, well under the limit.
#
# Environment: PROFILES (default "pipelined workload"), WINDOW (the wait
# measured, default 2m), KEEP=1 leaves the servers running; the server's
# as lib.sh's (SHARED_BUFFERS 256MB), with max_connections 200 and fsync off.
set -u
PORT=${PORT:-54425}; MAX_CONNECTIONS=${MAX_CONNECTIONS:-200} # 81 PgBouncers x 2 server connections
. "$(dirname "$(realpath "$0")")/lib.sh"
PGB=${PGBOUNCER:-$(command -v pgbouncer)}; PROFILES=${PROFILES:-pipelined workload}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$PGB" ] || { echo "no pgbouncer (docs/measure/peers.sh pgbouncer, or PGBOUNCER=path)" >&2; exit 1; }
measure_dir "${1:?usage: host200k.sh DIR}" host200k.log
mkdir -p "$D/pgb"; chown benchrig "$D/pgb"
log() { echo "$(date -u +%T) $* (load $(cut -d' ' -f1-3 /proc/loadavg); free $(free -g | awk '/^Mem/{print $7}') GiB)" | tee -a "$MEASURE_LOG"; }

ver=$("$PGB" --version | awk '/PgBouncer/{print $2}')
METHOD=
if [ "$(printf '%s\n1.21\n' "$ver" | sort -V | head -1)" != 1.21 ]; then
  METHOD=noprepare
  log "PgBouncer $ver < 1.21: no named prepared statements in transaction pooling; measuring with --method noprepare"
fi

# (A server or PgBouncers left running by KEEP=1 are stopped first.)
for f in "$D"/pgb/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
pg_running && pg_stop
# fsync off: what is measured is the client's memory and CPU, not commits.
pg_start -c fsync=off || exit 1
DIRECT=$(pg_url tpcc)
if ! db_exists tpcc; then
  log loading
  (cd "$REPO" && go build -o "$D/benchrig" ./cmd/benchrig) || exit 1
  "$D/benchrig" tpcc init --warehouses 4 "$DIRECT" >/dev/null || exit 1
  "$D/benchrig" tpcc load --warehouses 4 "$DIRECT" >/dev/null 2>&1 || exit 1
  log loaded
fi

# Loopback packets queue per CPU (net.core.netdev_max_backlog, 1,000 by
# default) until softirq delivers them: 200,070 connections dialled 100
# per URL at once and keepalives every 15 s (Go's default, which pgx
# keeps) on 2 busy cores overflowed it (/proc/net/softnet_stat's drops),
# SYNs were retransmitted and connections timed out. A real host's NIC
# spreads the same over 81 peers; here the queue is raised for the run.
OLD_BACKLOG=$(sysctl -n net.core.netdev_max_backlog)
sysctl -qw net.core.netdev_max_backlog=100000 || exit 1

# 81 PgBouncers, one per node address.
echo '"postgres" ""' > "$D/pgb/users.txt"
URLS=
for i in $(seq 1 81); do
  cat > "$D/pgb/$i.ini" <<EOF
[databases]
tpcc = host=127.0.0.1 port=$PORT dbname=tpcc user=postgres
[pgbouncer]
listen_addr = 127.0.1.$i
listen_port = 6432
unix_socket_dir =
auth_type = trust
auth_file = $D/pgb/users.txt
pool_mode = transaction
max_client_conn = 3000
default_pool_size = 2
max_prepared_statements = 200
logfile = $D/pgb/$i.log
pidfile = $D/pgb/$i.pid
client_login_timeout = 0
log_connections = 0
log_disconnections = 0
EOF
  [ -n "$METHOD" ] && sed -i '/max_prepared_statements/d' "$D/pgb/$i.ini"
  # runuser's PAM session sets a soft open-files limit of 1,024; each
  # PgBouncer holds ~2,470 clients (accept() fails with EMFILE past it).
  runuser -u benchrig -- prlimit --nofile=20000:20000 "$PGB" -d "$D/pgb/$i.ini" || exit 1
  URLS="$URLS postgres://postgres@127.0.1.$i:6432/tpcc?sslmode=disable"
done
stop() {
  sysctl -qw net.core.netdev_max_backlog="$OLD_BACKLOG"
  [ "${KEEP:-}" = 1 ] && return
  for f in "$D"/pgb/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  pg_stop
}
trap stop EXIT
log "81 PgBouncer $ver and PostgreSQL started"

# The servers' RSS, sampled beside the benchmark (PgBouncers summed).
sample() {
  while :; do
    pgb=0; for f in "$D"/pgb/*.pid; do
      r=$(awk '/^VmRSS/{print $2}' "/proc/$(cat "$f")/status" 2>/dev/null); pgb=$((pgb + ${r:-0})); done
    echo "$pgb"; sleep 2
  done
}
cd "$REPO/tpcc" || exit 1
go test -c -o "$D/tpcc.test" . || exit 1
for p in $PROFILES; do
  sample > "$D/pgb-rss.$p" & S=$!
  log "run $p"
  BENCHRIG_HOST200K_URLS="$URLS" BENCHRIG_HOST200K_PROFILE=$p BENCHRIG_HOST200K_METHOD=$METHOD \
    BENCHRIG_HOST200K_WINDOW=${WINDOW:-2m} \
    "$D/tpcc.test" -test.run '^$' -test.bench '^BenchmarkHost200k$' -test.benchtime 1x -test.timeout 90m -test.v \
    > "$D/bench.$p" 2>&1
  rc=$?; kill $S
  log "done $p (exit $rc): PgBouncers' RSS peak $(( $(sort -n "$D/pgb-rss.$p" | tail -1) / 1024 )) MiB"
  [ $rc = 0 ] || tail -20 "$D/bench.$p"
done

# The table: one column per profile.
echo
printf '%-34s' "PgBouncer $ver${METHOD:+ (--method $METHOD)}"; for p in $PROFILES; do printf '%16s' "$p"; done; echo
for m in processes terminals conns warmup-s dial-s-max warm-s-max warmup-CPU-s peak-RSS-GiB-sum-sampled \
  peak-RSS-GiB-sum-of-HWM peak-RSS-GiB-one-process waiting-RSS-GiB baseline-RSS-MiB \
  live-heap-B/conn-incl-terminals waiting-CPU-s/min waiting-GC-CPU-s/min transactions; do
  printf '%-34s' "$m"
  for p in $PROFILES; do
    v=$(awk -v m="$m" '/^BenchmarkHost200k/{for(i=1;i<NF;i++) if($(i+1)==m) print $i}' "$D/bench.$p")
    printf '%16s' "${v:--}"
  done; echo
done
printf '%-34s' "PgBouncers' RSS peak (MiB)"; for p in $PROFILES; do printf '%16s' $(( $(sort -n "$D/pgb-rss.$p" | tail -1) / 1024 )); done; echo
grep -h "profile, .* processes" "$D"/bench.* | sed 's/^ *//'
