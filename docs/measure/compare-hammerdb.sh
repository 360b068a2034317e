#!/bin/bash
# compare-hammerdb.sh: benchrig's TPC-C driver side by side with HammerDB
# v6.0's TPROC-C on one throwaway PostgreSQL 15 (lib.sh's: shared_buffers
# 256 MB unless SHARED_BUFFERS says, fsync on): 4 warehouses, 8 virtual users / 8
# workers, no keying or think time, read committed, RAMP s of ramp-up then
# MEASURE s measured. HammerDB runs its default PostgreSQL stored functions
# (pg_storedprocs false); benchrig runs --profile $PROFILE. The tools
# alternate (even rounds in reverse order), each run on a fresh copy of its
# tool's loaded database (CREATE DATABASE ... TEMPLATE).
#
# Every tool is measured the same way, outside it, over the same window:
# New-Orders are sum(d_next_o_id) of the district table (both tools use the
# TPC-C schema; a rolled-back New-Order does not advance it); client CPU is
# the tool process's utime+stime (/proc/PID/stat, all its threads); server
# CPU is the postmaster's utime+stime+cutime+cstime plus its live children's
# utime+stime. The window opens when HammerDB prints "Rampup complete" (its
# own first count) or at benchrig's first "run" tick, and closes MEASURE s
# later (HammerDB: at its "Test complete" line; benchrig runs 30 s longer
# than its window, so that it is still running when the window closes). The load phase is each
# tool's wall and user+sys from /usr/bin/time. analyze-hammerdb.py prints
# the table.
#
# Usage (as root; PostgreSQL runs as the user benchrig, as in the tests):
#   BENCHRIG=bin/benchrig HAMMERDB=/work/ext/hammerdb \
#     docs/measure/compare-hammerdb.sh /tmp/hdbcmp
#   python3 docs/measure/analyze-hammerdb.py /tmp/hdbcmp
# Environment: PROFILE (benchrig's --profile, default pipelined); a second
# benchrig variant in the same interleaved session with BENCHRIG2 and
# PROFILE2; INIT_ARGS / INIT_ARGS2 extra `tpcc init` flags, of which
# --fks=... goes to `tpcc load` too (--fks=false: HammerDB's schema has no
# foreign keys; --fillfactor N); LABEL /
# LABEL2 name the variants (default: their profiles); ROUNDS (2),
# FIRST_ROUND (1);
# RAMP and MEASURE in seconds (60 / 60; HammerDB takes minutes in steps of
# 6 s, so use multiples of 6, e.g. RAMP=30 MEASURE=30 for a trial);
# HDB_BUILD_VU (HammerDB's load virtual users, default 4, one per
# warehouse); SHARED_BUFFERS (lib.sh; 1280MB holds the W=4 databases
# whole). HammerDB is built outside this repository by
# `docs/measure/peers.sh hammerdb` (hammerdb.md says how and why); nothing
# of it is committed.
set -u
PORT=${PORT:-54424}
HERE=$(dirname "$(realpath "$0")")
. "$HERE/lib.sh"
B1=$(realpath "${BENCHRIG:?set BENCHRIG}"); P1=${PROFILE:-pipelined}; L1=${LABEL:-$P1}
B2=${BENCHRIG2:+$(realpath "$BENCHRIG2")}; P2=${PROFILE2:-}; L2=${LABEL2:-$P2}
HDB=$(realpath "${HAMMERDB:?set HAMMERDB to the unpacked HammerDB tree}")
RAMP=${RAMP:-60}; MEASURE=${MEASURE:-60}; ROUNDS=${ROUNDS:-2}; W=4; VU=8
HZ=$(getconf CLK_TCK)
measure_dir "${1:?usage: compare-hammerdb.sh DIR}" cmp.log
mkdir -p "$D/hdbtmp"
pg_start || exit 1
tm() { /usr/bin/time -f "%e %U %S" -o "$1" "${@:2}"; }

# hdb SCRIPT.tcl: HammerDB's CLI on tclsh8.6 through the stand-in launcher.
hdb() { HAMMERDB=$HDB TMP=$D/hdbtmp exec tclsh8.6 "$HERE/hammerdbcli86.tcl" auto "$1"; }
hdbconf() { # database
  cat <<EOF
dbset db pg
dbset bm TPC-C
diset connection pg_host 127.0.0.1
diset connection pg_port $PORT
diset connection pg_sslmode disable
diset tpcc pg_superuser postgres
diset tpcc pg_superuserpass postgres
diset tpcc pg_defaultdbase postgres
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase $1
diset tpcc pg_storedprocs false
EOF
}

# Load phase: each tool loads W=4 once into its base database.
if ! db_exists hdb_base; then
  log loading hammerdb
  { hdbconf hdb_base; echo "diset tpcc pg_count_ware $W"; echo "diset tpcc pg_num_vu ${HDB_BUILD_VU:-4}"; echo buildschema; echo exit; } > hdb-build.tcl
  tm load-hdb.time env HAMMERDB="$HDB" TMP="$D/hdbtmp" tclsh8.6 "$HERE/hammerdbcli86.tcl" auto "$D/hdb-build.tcl" > load-hdb.out 2>&1
  grep -q "SCHEMA COMPLETE" load-hdb.out || { log hammerdb load failed, see load-hdb.out; exit 1; }
  log loaded hammerdb
fi
brload() { # label binary init-args
  db_exists "$1_base" && return 0
  log loading "$1"
  tm "load-$1-init.time" "$2" tpcc init --warehouses $W $3 "$(pg_url "$1_base")" > "load-$1.out" 2>&1 || { log "$1 init failed"; exit 1; }
  local la="" a
  for a in $3; do case $a in --fks*) la="$la $a";; esac; done
  tm "load-$1-load.time" "$2" tpcc load --warehouses $W $la "$(pg_url "$1_base")" >> "load-$1.out" 2>&1 || { log "$1 load failed"; exit 1; }
  log loaded "$1"
}
brload "br_$L1" "$B1" "${INIT_ARGS:-}"
[ -n "$B2" ] && brload "br_$L2" "$B2" "${INIT_ARGS2:-}"
sql -d postgres -c checkpoint

# sample DB PID: epoch New-Orders client-ticks server-ticks. The /proc
# reads come first, the query (a new connection, slow at a high load
# average) last; the instant is the query's.
sample() {
  local no cl sv t
  cl=$(awk '{print $14+$15}' "/proc/$2/stat" 2>/dev/null || echo NA)
  sv=$(server_ticks)
  t=$(date +%s.%N)
  no=$(neworders "$1")
  echo "$t $no $cl $sv"
}
waitfor() { # file pattern pid timeout-s
  local i=0
  while ! grep -q "$2" "$1" 2>/dev/null; do
    kill -0 "$3" 2>/dev/null || return 1
    i=$((i+1)); [ $i -gt $(($4*10)) ] && return 1
    sleep 0.1
  done
}
record() { # name db pid start end
  echo "$1 hz $HZ start $4 end $5 load $(cut -d' ' -f1-3 /proc/loadavg)" >> runs.txt
}

run_hdb() { # round
  local n=hdb-$1 pid s e
  pg_fresh hdb hdb_base
  { hdbconf hdb
    echo "diset tpcc pg_driver timed"
    echo "diset tpcc pg_keyandthink false"
    echo "diset tpcc pg_rampup $(python3 -c "print('%g' % ($RAMP/60))")"
    echo "diset tpcc pg_duration $(python3 -c "print('%g' % ($MEASURE/60))")"
    echo loadscript; echo "vuset vu $VU"; echo vucreate; echo vurun; echo _waittocomplete; echo vudestroy; echo exit; } > $n.tcl
  ( hdb "$D/$n.tcl" ) > $n.out 2>&1 &
  pid=$!
  if waitfor $n.out "Rampup complete" $pid $((RAMP+300)); then
    s=$(sample hdb $pid)
    if waitfor $n.out "Test complete" $pid $((MEASURE+60)); then e=$(sample hdb $pid); record $n hdb $pid "$s" "$e"; fi
  fi
  wait $pid; log hammerdb $1
}
run_br() { # label binary profile round
  local n=$1-$4 pid s e
  pg_fresh br "$1_base"
  "$2" tpcc run --warehouses $W --wait=false --workers $VU --isolation read-committed --profile "$3" \
    --ramp "${RAMP}s" --duration "$((MEASURE+30))s" --tolerate-errors --result $n.json --ticks $n.ticks.jsonl "$(pg_url br)" > $n.out 2>&1 &
  pid=$!
  if waitfor $n.ticks.jsonl '"phase":"run"' $pid $((RAMP+120)); then
    s=$(sample br $pid); sleep "$MEASURE"; e=$(sample br $pid); record $n br $pid "$s" "$e"
  fi
  wait $pid; log "$1" "$4"
}
# FIRST_ROUND: a later session on the same DIR reuses the loaded databases
# and numbers its rounds on (FIRST_ROUND=3 after two).
F=${FIRST_ROUND:-1}
for r in $(seq "$F" $((F + ROUNDS - 1))); do
  order="hdb b1 b2"; [ $((r%2)) = 0 ] && order="b2 b1 hdb"
  for t in $order; do
    case $t in
      hdb) run_hdb "$r" ;;
      b1) run_br "br_$L1" "$B1" "$P1" "$r" ;;
      b2) [ -n "$B2" ] && run_br "br_$L2" "$B2" "$P2" "$r" ;;
    esac
  done
done
log done
pg_stop
