#!/bin/bash
# peers.sh: builds the tools docs/measure's scripts measure benchrig
# against, at the versions the measurements name, outside this repository
# (under EXT, default /work/ext); nothing of them is ever committed. Each
# prints the variable to give the scripts.
#
#   docs/measure/peers.sh go-tpc      GOTPC=$EXT/go-tpc/bin/go-tpc      (compare-go-tpc.sh)
#   docs/measure/peers.sh hammerdb    HAMMERDB=$EXT/hammerdb            (compare-hammerdb.sh)
#   docs/measure/peers.sh pgbouncer   PGBOUNCER=$EXT/pgbouncer/pgbouncer (host200k.sh)
#
# As root on Debian 12 (it installs the build dependencies with apt-get).
# A peer already built is left as it is. Versions: go-tpc master at
# 682637f; HammerDB v6.0 (d33f879a) with pgtcl-ng d46f59e7; PgBouncer
# 1.25.2. Why HammerDB is built so (Tcl 8.6, its PostgreSQL binding from
# source): hammerdb.md, "Building HammerDB v6.0 on Debian 12".
set -eu
EXT=${EXT:-/work/ext}
HERE=$(dirname "$(realpath "$0")")
mkdir -p "$EXT"

gotpc() {
	local d=$EXT/go-tpc
	if [ ! -x "$d/bin/go-tpc" ]; then
		[ -d "$d" ] || git clone https://github.com/pingcap/go-tpc "$d"
		git -C "$d" checkout 682637f
		make -C "$d" build
	fi
	echo "GOTPC=$d/bin/go-tpc"
}

hammerdb() {
	local h=$EXT/hammerdb p=$EXT/pgtclng
	if [ ! -f "$h/lib/pgtcl/pkgIndex.tcl" ]; then
		# tcl8.6, tcl-dev, libpq-dev and postgresql-15 are needed too.
		apt-get install -y tcl8.6 tcl-dev libpq-dev tcl-thread libsqlite3-tcl autoconf make gcc
		# The repository's Build/ holds binaries and is not needed.
		[ -d "$EXT/HammerDB.git" ] || git clone https://github.com/TPC-Council/HammerDB "$EXT/HammerDB.git"
		mkdir -p "$h"
		git -C "$EXT/HammerDB.git" archive v6.0 -- agent config hammerdbcli modules scripts src images LICENSE README.md ChangeLog |
			tar -x -C "$h"
		# Two of HammerDB's modules ask for Tcl 9 and run on 8.6 as they are.
		sed -i 's/^package require Tcl 9.0$/package require Tcl 8.6/' \
			"$h/modules/json-1.3.4.tm" "$h/modules/huddle-0.3.tm"
		# pgtcl-ng: Debian's libpgtcl is not thread-safe; its source uses
		# Tcl 9's Tcl_Size, which is int on Tcl 8.6.
		[ -d "$p" ] || git clone https://github.com/sm-shaw/pgtclng "$p"
		git -C "$p" checkout d46f59e7
		(cd "$p" && ./configure --with-tcl=/usr/lib/tcl8.6 --with-tclinclude=/usr/include/tcl8.6 &&
			make PKG_CFLAGS=-DTcl_Size=int)
		mkdir -p "$h/lib/pgtcl"
		cp "$p/libpgtcl2.1.1.2.so" "$p/pkgIndex.tcl" "$h/lib/pgtcl/"
	fi
	# Check: the CLI starts and prints its PostgreSQL settings (TMP holds
	# its jobs database).
	local t
	t=$(mktemp -d)
	echo 'dbset db pg; print dict; exit' >"$t/check.tcl"
	HAMMERDB=$h TMP=$t tclsh8.6 "$HERE/hammerdbcli86.tcl" auto "$t/check.tcl"
	rm -rf "$t"
	echo "HAMMERDB=$h"
}

pgbouncer() {
	# Named prepared statements through transaction pooling need 1.21 or
	# later (max_prepared_statements); Debian 12's is 1.18.
	local d=$EXT/pgbouncer
	if [ ! -x "$d/pgbouncer" ]; then
		apt-get install -y libevent-dev autoconf automake pkg-config libssl-dev make gcc
		[ -d "$d" ] || git clone https://github.com/pgbouncer/pgbouncer "$d"
		git -C "$d" checkout pgbouncer_1_25_2 # no submodules from 1.25
		(cd "$d" && ./autogen.sh && ./configure --without-cares && make pgbouncer)
	fi
	echo "PGBOUNCER=$d/pgbouncer"
}

case ${1:-} in
go-tpc) gotpc ;;
hammerdb) hammerdb ;;
pgbouncer) pgbouncer ;;
*)
	echo "usage: peers.sh go-tpc|hammerdb|pgbouncer" >&2
	exit 2
	;;
esac
