#!/bin/bash
# server-profile.sh: where PostgreSQL's CPU and WAL go during one benchrig
# run, on the server and loaded databases of a compare-hammerdb.sh DIR
# (W=4, 8 workers, no keying or think time, read committed, RAMP s of
# ramp-up, then a MEASURE s window on a fresh copy of br_$LABEL_base).
# Over the window it prints:
#   - server CPU per 1,000 New-Orders by process type (/proc: each child
#     of the postmaster by its title; "exited children" is the
#     postmaster's cutime+cstime, the autovacuum workers that ended);
#   - WAL per New-Order by record type, records and full-page images apart
#     (pg_walinspect, PostgreSQL 15's contrib);
#   - each table's updates and how many stayed on their page (HOT).
# New-Orders are sum(d_next_o_id), as compare-hammerdb.sh counts them.
#
# Usage (as root; after compare-hammerdb.sh has loaded DIR):
#   BENCHRIG=bin/benchrig LABEL=fn_main docs/measure/server-profile.sh /tmp/hdbcmp
# Environment: PROFILE (default functions), LABEL (the base database is
# br_$LABEL_base; default the profile), RAMP (30), MEASURE (60), PORT,
# SHARED_BUFFERS (lib.sh; give the one compare-hammerdb.sh ran with).
set -u
PORT=${PORT:-54424}
. "$(dirname "$(realpath "$0")")/lib.sh"
B=$(realpath "${BENCHRIG:?set BENCHRIG}"); PROF=${PROFILE:-functions}; L=${LABEL:-$PROF}
RAMP=${RAMP:-30}; MEASURE=${MEASURE:-60}; HZ=$(getconf CLK_TCK)
[ -f "$(realpath -m "${1:?usage: server-profile.sh DIR}")/pg/PG_VERSION" ] || { echo "$1/pg: no server; run compare-hammerdb.sh on $1 first" >&2; exit 1; }
measure_dir "$1" profile.log
pg_start || exit 1
P="sql -d postgres"
# On every exit: the slot below goes (a slot left behind keeps all WAL
# from then on), then the server stops.
trap '$P -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"'server_profile'"'" >/dev/null
  pg_stop' EXIT
Q="psql -h 127.0.0.1 -p $PORT -U postgres -d br"
$P -c "CREATE EXTENSION IF NOT EXISTS pg_walinspect" -c "DROP DATABASE IF EXISTS br" -c "CREATE DATABASE br TEMPLATE br_${L}_base" -c checkpoint || exit 1

# procs: "PID TICKS TYPE" for the postmaster's children, then the
# postmaster itself and its ended children.
procs() {
  local pm f l p t
  pm=$(head -1 "$D/pg/postmaster.pid")
  for f in /proc/[0-9]*/stat; do
    read -r l < "$f" 2>/dev/null || continue
    # shellcheck disable=SC2086
    set -- $l
    if [ "$4" = "$pm" ]; then
      p=$1; t=$((${14} + ${15}))
      # The title: "postgres: checkpointer", "postgres: autovacuum worker",
      # "postgres: postgres br 127.0.0.1(...) idle" (a backend).
      case $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null) in
        *"postgres br "*|*"postgres postgres "*) echo "$p $t backends" ;;
        "postgres: "*) echo "$p $t $(tr '\0' ' ' < "/proc/$p/cmdline" | sed 's/^postgres: //; s/ *$//; s/ br$//; s/ /_/g')" ;;
        *) echo "$p $t other" ;;
      esac
    elif [ "$1" = "$pm" ]; then
      echo "$pm $((${14} + ${15})) postmaster"
      echo "exited $((${16} + ${17})) exited_children"
    fi
  done | LC_ALL=C sort
}
count() { neworders br; }
lsn() { $P -tAc "SELECT pg_current_wal_lsn()"; }
tables() { $Q -tAc "SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables" | LC_ALL=C sort; }

"$B" tpcc run --warehouses 4 --wait=false --workers 8 --isolation read-committed --profile "$PROF" \
  --ramp "${RAMP}s" --duration "$((MEASURE + 20))s" --tolerate-errors "postgres://postgres@127.0.0.1:$PORT/br?sslmode=disable" > "$D/profile-$L.out" 2>&1 &
pid=$!
sleep "$((RAMP + 3))"
# A replication slot keeps the window's WAL for pg_walinspect past the
# checkpoints that would recycle it (no setting of the server changes).
$P -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'server_profile'" \
  -c "SELECT pg_create_physical_replication_slot('server_profile', true)" >/dev/null
procs > "$D/profile-$L.procs0"; w0=$(lsn); n0=$(count)
tables > "$D/profile-$L.tables0"
sleep "$MEASURE"
procs > "$D/profile-$L.procs1"; w1=$(lsn); n1=$(count)
tables > "$D/profile-$L.tables1"
wait $pid
no=$((n1 - n0))
[ "$no" -gt 0 ] || { echo "no New-Orders in the window: see $D/profile-$L.out" >&2; exit 1; }
echo "$L: $no New-Orders in $MEASURE s ($((no * 60 / MEASURE)) per minute)"
echo
echo "server CPU by process type (s per 1,000 New-Orders; a process that started or ended inside the window counts from 0):"
LC_ALL=C join -a 2 -e 0 -o 2.1,1.2,2.2,2.3 "$D/profile-$L.procs0" "$D/profile-$L.procs1" |
  awk -v hz="$HZ" -v no="$no" '{d[$4] += $3 - $2; s += $3 - $2}
    END {for (k in d) printf "  %-28s %7.3f\n", k, d[k] / hz / no * 1000; printf "  %-28s %7.3f\n", "all", s / hz / no * 1000}' | sort -k2 -rn
echo
echo "WAL per New-Order by record type (bytes):"
$P -c "SELECT \"resource_manager/record_type\" AS record, count, round(record_size / $no.0) AS records, round(fpi_size / $no.0) AS page_images, round(combined_size / $no.0) AS total
FROM pg_get_wal_stats('$w0', '$w1', true) WHERE count > 0 ORDER BY combined_size DESC"
$P -tAc "SELECT 'all: ' || round(pg_wal_lsn_diff('$w1', '$w0') / $no.0) || ' bytes per New-Order'"
echo
echo "updates in the window, and how many stayed on their page (HOT):"
LC_ALL=C join "$D/profile-$L.tables0" "$D/profile-$L.tables1" -t '|' |
  awk -F'|' '$4 > $2 {u = $4 - $2; h = $5 - $3; printf "  %-12s %9d updates, %5.1f %% HOT\n", $1, u, 100 * h / u}'
