#!/bin/sh
# The bytes the orchestrator sends for the install stage (the benchrig
# binary to every host), at the 100k recipe's 86 hosts by default: N real
# sshd on loopback, each behind a proxy that counts what crosses it, a
# postgres plan whose every host runs benchrig, `benchrig run --only
# install` twice. Prints the test's UPLINK line (hosts, binary size, bytes
# sent, their ratio, what one upload per host would have sent) and what
# the second install sent. Needs what `make test` needs (.ci/setup:
# OpenSSH server, PostgreSQL); takes a few minutes at 86 hosts.
#
#   docs/measure/uplink.sh [HOSTS]      every host runs benchrig (tpcc, host sampling)
#   CRUD=1 docs/measure/uplink.sh       the rehearsal's shape: 81 nodes, 5 workload hosts, crud
set -eu
cd "$(dirname "$0")/../.."
BENCHRIG_SHARE_HOSTS="${1:-86}" BENCHRIG_SHARE_CRUD="${CRUD:-}" go test ./cmd/benchrig/e2e -run 'TestInstallSendsBinaryOnce$' -count=1 -v -timeout 30m |
	grep -E 'UPLINK|install of|second install|^(--- |ok|FAIL)'
