#!/bin/bash
# compare-profiles.sh: benchrig's load profiles side by side on one
# throwaway PostgreSQL 15 (shared_buffers 256 MB, fsync on), as
# compare-go-tpc.sh measures: 4 warehouses, 8 workers, no think time, 60 s
# per run, each run on a fresh copy of the loaded database, the profiles
# alternating (round 2 starts with the second profile). Outside CI.
#
# Per run: client CPU is benchrig's user+sys from /usr/bin/time; server
# CPU is the whole server's (postmaster, its live children and the
# children it reaped: /proc/PID/stat utime+stime+cutime+cstime) after the
# run minus before; New-Orders are counted by the server (sum(D_NEXT_O_ID)
# after minus before: committed ones, the 1% rollbacks excluded), over the
# same window as the CPU. The load average is logged with every run: the
# machine is shared, and CPU per 1,000 New-Orders is the robust figure.
#
# Usage (as root; PostgreSQL runs as the user benchrig, as in the tests):
#   BENCHRIG=bin/benchrig docs/measure/compare-profiles.sh /tmp/cmp-profiles
# Each run's audit verdict is logged, and `tpcc check --expensive` runs
# after it (CHECK=0 skips it).
# Environment: PROFILES (default "pipelined functions"), ISOLATION
# (default read-committed), ROUNDS (2), DURATION (60s), CHECK (1), PORT,
# PGBIN.
set -u
D=${1:?usage: compare-profiles.sh DIR}; PG=${PGBIN:-/usr/lib/postgresql/15/bin}; PORT=${PORT:-54457}
B=$(realpath "${BENCHRIG:?set BENCHRIG}")
PROFILES=${PROFILES:-pipelined functions}; ISO=${ISOLATION:-read-committed}; ROUNDS=${ROUNDS:-2}; DUR=${DURATION:-60s}
mkdir -p "$D"; chown benchrig "$D"
cd "$D"
log() { echo "$(date -u +%T) $* load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$D/cmp.log"; }
if [ ! -d "$D/pg" ]; then mkdir -p "$D/pg"; chown benchrig "$D/pg"; chmod 700 "$D/pg"
  runuser -u benchrig -- "$PG/initdb" -D "$D/pg" -U postgres -A trust >/dev/null || exit 1
fi
P="psql -q -h 127.0.0.1 -p $PORT -U postgres"
runuser -u benchrig -- "$PG/pg_ctl" -D "$D/pg" -l "$D/pg.log" -o "-p $PORT -c shared_buffers=256MB -c max_connections=100 -c listen_addresses=127.0.0.1 -c unix_socket_directories=$D" -w start >/dev/null || exit 1
trap 'runuser -u benchrig -- "$PG/pg_ctl" -D "$D/pg" -m fast -w stop >/dev/null' EXIT
URL="postgres://postgres@127.0.0.1:$PORT"
if ! $P -d postgres -tAc "select 1 from pg_database where datname='tpcc_base'" | grep -q 1; then
  log loading
  $B tpcc init --warehouses 4 "$URL/tpcc_base?sslmode=disable" || exit 1
  $B tpcc load --warehouses 4 "$URL/tpcc_base?sslmode=disable" 2>/dev/null || exit 1
  $P -d postgres -c checkpoint
  log loaded
fi
# The functions are (re)installed on the base by init, which is idempotent:
# a base loaded by an older benchrig gets this build's functions.
$B tpcc init --warehouses 4 "$URL/tpcc_base?sslmode=disable" >/dev/null || exit 1

# servercpu prints the server's CPU seconds so far (clock ticks / 100).
servercpu() {
  local pm t=0 f
  pm=$(head -1 "$D/pg/postmaster.pid")
  f=($(sed 's/.*) //' /proc/$pm/stat)); t=$((f[11] + f[12] + f[13] + f[14]))
  for s in /proc/[0-9]*/stat; do
    f=($(sed 's/.*) //' "$s" 2>/dev/null)) || continue
    [ "${f[1]:-}" = "$pm" ] && t=$((t + f[11] + f[12]))
  done
  echo "scale=2; $t / $(getconf CLK_TCK)" | bc
}
neworders() { $P -d tpcc -tAc "select sum(d_next_o_id) from district"; }

run() { # profile round
  local f=cmp-$ISO-$1-$2
  $P -d postgres -c "drop database if exists tpcc" -c "create database tpcc template tpcc_base" -c checkpoint
  local no0 cpu0 no1 cpu1
  no0=$(neworders); cpu0=$(servercpu)
  /usr/bin/time -f "cpu %U %S" -o $f.time $B tpcc run --profile $1 --warehouses 4 --wait=false --workers 8 --duration $DUR \
    --isolation $ISO --tolerate-errors --result $f.json --ticks $f.ticks.jsonl "$URL/tpcc?sslmode=disable" > $f.out 2>&1
  sleep 1 # the backends exit and are reaped
  cpu1=$(servercpu); no1=$(neworders)
  local ccpu no scpu
  ccpu=$(awk '{print $2 + $3}' $f.time); no=$((no1 - no0)); scpu=$(echo "$cpu1 - $cpu0" | bc)
  echo "$1 $2 $ISO neworders_server $no client_cpu_s $ccpu server_cpu_s $scpu client_s_per_1k $(echo "scale=3; $ccpu * 1000 / $no" | bc) server_s_per_1k $(echo "scale=3; $scpu * 1000 / $no" | bc) per_min $(echo "scale=0; $no * 60 / ${DUR%s}" | bc) server_cpu_before_after $cpu0 $cpu1 load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$D/figures.txt"
  log "$1 round $2 done ($(grep -o '"profile": *"[a-z]*"' $f.json), audit $(grep -o '"pass": *[a-z]*' $f.json))"
  if [ "${CHECK:-1}" = 1 ]; then # clause 3.3.2, all twelve conditions, after the measured window
    $B tpcc check --expensive "$URL/tpcc?sslmode=disable" > $f.check 2>&1; log "$1 round $2 tpcc check exit $? ($(grep -c PASS $f.check) PASS, $(grep -c FAIL $f.check) FAIL)"
  fi
}
for r in $(seq 1 "$ROUNDS"); do
  ps=($PROFILES)
  if [ $((r % 2)) = 0 ]; then ps=($(printf '%s\n' "${ps[@]}" | tac)); fi
  for p in "${ps[@]}"; do run "$p" "$r"; done
done
log done
