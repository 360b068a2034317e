#!/bin/bash
# compare-go-tpc.sh: benchrig's TPC-C driver side by side with go-tpc on
# one throwaway PostgreSQL 15 (lib.sh's: shared_buffers 256 MB unless
# SHARED_BUFFERS says, fsync on): 4 warehouses, 8 workers, no think time,
# 60 s per run, the three isolation
# levels, benchrig and go-tpc alternating (round 2 starts with go-tpc),
# each run on a fresh copy of its loaded database; then two more
# serializable benchrig runs for the spread. CPU is each client's
# user+sys from /usr/bin/time. analyze.py prints the table README quotes.
#
# Usage (as root; PostgreSQL runs as the user benchrig, as in the tests):
#   BENCHRIG=bin/benchrig GOTPC=/path/to/go-tpc docs/measure/compare-go-tpc.sh /tmp/cmp
# go-tpc is built outside this repository by `docs/measure/peers.sh go-tpc`;
# it is never committed.
#
# An A/B of two benchrig builds in the same run: BENCHRIG2=path runs it as
# "b2" right after each benchrig run, on its own fresh copy (and in the
# serializable repeats), so both builds meet the same load. LEVELS
# (default "RC RR SER") and ROUNDS (default 2) shorten a run; DURATION
# (default 60s) is each run's length.
set -u
PORT=${PORT:-54423}
. "$(dirname "$(realpath "$0")")/lib.sh"
B=$(realpath "${BENCHRIG:?set BENCHRIG}"); GT=$(realpath "${GOTPC:?set GOTPC}")
B2=${BENCHRIG2:+$(realpath "$BENCHRIG2")}; LEVELS=${LEVELS:-RC RR SER}; ROUNDS=${ROUNDS:-2}; DUR=${DURATION:-60s}
measure_dir "${1:?usage: compare-go-tpc.sh DIR}" cmp.log
if pg_running; then log "server: $(pg_config_line) (a rerun: already running)"; else pg_start || exit 1; fi
if ! db_exists tpcc_base; then
  log loading
  $B tpcc init --warehouses 4 "$(pg_url tpcc_base)" || exit 1
  $B tpcc load --warehouses 4 "$(pg_url tpcc_base)" 2>/dev/null || exit 1
  sql -d postgres -c "create database gotpc_base"
  $GT tpcc prepare --driver postgres -H 127.0.0.1 -P $PORT -U postgres -D gotpc_base --conn-params sslmode=disable --warehouses 4 -T 4 >/dev/null 2>&1 || exit 1
  sql -d postgres -c checkpoint
  log loaded
fi
brun() { # binary tag level name round
  pg_fresh tpcc tpcc_base
  /usr/bin/time -f "cpu %U %S" -o cmp-$2-$4-$5.time $1 tpcc run --warehouses 4 --wait=false --workers 8 --duration $DUR --isolation $3 --tolerate-errors --result cmp-$2-$4-$5.json --ticks cmp-$2-$4-$5.ticks.jsonl "$(pg_url tpcc)" > cmp-$2-$4-$5.out 2>&1
  log $2 $4 $5
}
br() { # level name round: benchrig, then BENCHRIG2 (if set)
  brun $B br "$@"
  if [ -n "$B2" ]; then brun $B2 b2 "$@"; fi
}
gt() { # isolation-int name round
  pg_fresh gotpc gotpc_base
  /usr/bin/time -f "cpu %U %S" -o cmp-gt-$2-$3.time $GT tpcc run --driver postgres -H 127.0.0.1 -P $PORT -U postgres -D gotpc --conn-params sslmode=disable --warehouses 4 -T 8 --time $DUR --isolation $1 --ignore-error --silence > cmp-gt-$2-$3.out 2>&1
  log gt $2 $3
}
for r in $(seq 1 $ROUNDS); do
  for lvl in "read-committed 2 RC" "repeatable-read 4 RR" "serializable 6 SER"; do
    set -- $lvl
    case " $LEVELS " in *" $3 "*) ;; *) continue;; esac
    if [ $((r % 2)) = 1 ]; then br $1 $3 $r; gt $2 $3 $r; else gt $2 $3 $r; br $1 $3 $r; fi
  done
done
# Two more serializable benchrig repeats for the spread.
case " $LEVELS " in *" SER "*) br serializable SER $((ROUNDS+1)); br serializable SER $((ROUNDS+2));; esac
log done
