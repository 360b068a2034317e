# benchrig. `make demo` and `make test` do their own machine set-up
# (.ci/setup: apt packages when missing, the unprivileged test user when
# run as root), so both work on a fresh Debian machine with Go installed.
GO      ?= go
BIN     := bin/benchrig
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all setup build test lint check bench demo golden clean fuzz rehearse

all: build

setup:
	@bash .ci/setup

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/benchrig

# The test command of README.md and .ci/run: everything, with the race
# detector, against real sshd and PostgreSQL servers started on loopback.
# go test runs -p packages at a time, in the order named: the slowest
# come first (docs/measure/test-suite.md), so that none starts last and
# sets the end alone. -p 4 on 2 cores: the end-to-end packages mostly wait
# on their labs (their tests run in parallel inside, cmd/benchrig/e2e's
# doc) while the other packages compute. -timeout is per package: twice
# the slowest package's time seen here (tpcc, 1,130 s in a full suite on
# 2 cores shared with other jobs, docs/measure/test-suite.md), so that
# CI fails on time only when something hangs.
TEST_FIRST := ./cmd/benchrig/e2e/faults/ ./cmd/benchrig/e2e/ ./tpcc/ ./cmd/benchrig/
test: setup
	$(GO) test -race -count=1 -p 4 -timeout 40m $(TEST_FIRST) ./...

# goimports groups imports: standard library, other modules, then this
# module (-local). It is installed outside the repository, into GOBIN or
# GOPATH/bin, the first time lint runs on a machine.
GOIMPORTS_BIN := $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)
GOIMPORTS     := $(GOIMPORTS_BIN)/goimports

$(GOIMPORTS):
	GOBIN=$(GOIMPORTS_BIN) $(GO) install golang.org/x/tools/cmd/goimports@latest

lint: $(GOIMPORTS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@out=$$($(GOIMPORTS) -local github.com/benchrig/benchrig -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then \
	  echo "imports not grouped (run $(GOIMPORTS) -local github.com/benchrig/benchrig -w on them):"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@cp go.mod /tmp/benchrig-go.mod.bak; cp go.sum /tmp/benchrig-go.sum.bak; \
	  $(GO) mod tidy; \
	  if ! cmp -s go.mod /tmp/benchrig-go.mod.bak || ! cmp -s go.sum /tmp/benchrig-go.sum.bak; then \
	    echo "go.mod/go.sum are not tidy (go mod tidy changed them)"; exit 1; fi

check: lint test

# Benchmarks: each prints its ratios (b.ReportMetric) measured side by
# side in one run; see README.md "Performance".
bench: setup
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

# Fuzzing: every fuzz test of the module, found by `go test -list` (a new
# one is never left out of a hand-kept list), runs FUZZTIME in turn (`go
# test -fuzz` takes one at a time); their seed corpora already run in
# `make test`.
FUZZTIME ?= 60s
fuzz: setup
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for name in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$name ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# Rewrite golden files after reviewing a change of output.
golden:
	$(GO) test $$(grep -rl 'benchrig/internal/golden"' --include='*_test.go' . | xargs -n1 dirname | sort -u) -update

demo: setup build
	@bash .ci/demo $(BIN)

# The 100k recipe's shape for real (not in CI; ~20 minutes, ~5 GB of disk):
# 86 sshd on loopback, 81 PostgreSQL nodes in 27 racks and 5 workload hosts
# through every stage and teardown --wipe, a frozen-sshd fault in the run
# stage, and the orchestrator's own figures per stage against a 5-host
# plan's (docs/measure/rehearse; README "Performance").
rehearse: setup build
	$(GO) run ./docs/measure/rehearse -bin $(BIN)

clean:
	rm -rf bin
