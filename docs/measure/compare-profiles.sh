#!/bin/bash
# compare-profiles.sh: benchrig's load profiles side by side on one
# throwaway PostgreSQL 15 (lib.sh's: shared_buffers 256 MB unless
# SHARED_BUFFERS says, fsync on), as
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
# PGBIN, SHARED_BUFFERS.
set -u
PORT=${PORT:-54457}
. "$(dirname "$(realpath "$0")")/lib.sh"
B=$(realpath "${BENCHRIG:?set BENCHRIG}")
PROFILES=${PROFILES:-pipelined functions}; ISO=${ISOLATION:-read-committed}; ROUNDS=${ROUNDS:-2}; DUR=${DURATION:-60s}
measure_dir "${1:?usage: compare-profiles.sh DIR}" cmp.log
pg_start || exit 1
trap pg_stop EXIT
P="sql"
URL="postgres://postgres@127.0.0.1:$PORT"
if ! db_exists tpcc_base; then
  log loading
  $B tpcc init --warehouses 4 "$URL/tpcc_base?sslmode=disable" || exit 1
  $B tpcc load --warehouses 4 "$URL/tpcc_base?sslmode=disable" 2>/dev/null || exit 1
  $P -d postgres -c checkpoint
  log loaded
fi
# The functions are (re)installed on the base by init, which is idempotent:
# a base loaded by an older benchrig gets this build's functions.
$B tpcc init --warehouses 4 "$URL/tpcc_base?sslmode=disable" >/dev/null || exit 1

# servercpu prints the server's CPU seconds so far (lib.sh's ticks / CLK_TCK).
servercpu() { echo "scale=2; $(server_ticks) / $(getconf CLK_TCK)" | bc; }

run() { # profile round
  local f=cmp-$ISO-$1-$2
  pg_fresh tpcc tpcc_base
  local no0 cpu0 no1 cpu1
  no0=$(neworders tpcc); cpu0=$(servercpu)
  /usr/bin/time -f "cpu %U %S" -o $f.time $B tpcc run --profile $1 --warehouses 4 --wait=false --workers 8 --duration $DUR \
    --isolation $ISO --tolerate-errors --result $f.json --ticks $f.ticks.jsonl "$URL/tpcc?sslmode=disable" > $f.out 2>&1
  sleep 1 # the backends exit and are reaped
  cpu1=$(servercpu); no1=$(neworders tpcc)
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
