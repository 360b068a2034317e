package crdb

import "time"

// Resources are what a release's node keeps for itself and how fast it
// moves replicas: the facts benchrig's needs model (orchestrator/stages,
// needs.go) reads to size a node's open files and to estimate the wait
// for up-replication and partitioning. The figures are the release's own
// constants and defaults, read at the commits of docs/fidelity/v20.1.md
// (release-20.1 0cb10f369a); v25.4's tree cannot be read here
// (docs/fidelity/v25.4.md), so a later release keeps them except where a
// change below names the PR that changed one.
//
// fidelity:v20.1/N1 fidelity:v20.1/N2 fidelity:v20.1/N3 fidelity:v20.1/N4 fidelity:v20.1/N5
type Resources struct {
	// NetworkFDMin and NetworkFDRecommended are the open files a node
	// leaves outside its store for everything else (client and RPC
	// connections, logs): it refuses to start below
	// stores x EngineFDMin + NetworkFDMin, raises its soft limit only up
	// to stores x EngineFDRecommended + NetworkFDRecommended, and from
	// there gives the store all but NetworkFDRecommended
	// (pkg/server/config.go:71-72, pkg/server/config_unix.go:32-34,
	// 123-139 @ 0cb10f369a).
	NetworkFDMin, NetworkFDRecommended int
	// EngineFDMin and EngineFDRecommended are the store engine's
	// max_open_files floor and recommendation (pkg/storage/rocksdb.go:143,
	// 149 @ 0cb10f369a).
	EngineFDMin, EngineFDRecommended int
	// EngineFileBytes is the engine's file size where most data lives:
	// "the number of files will be approximately total-data-size / 128
	// MB" (c-deps/libroach/options.cc:302 @ 0cb10f369a, RocksDB, v20.1's
	// default engine: pkg/cli/start.go:419-420).
	EngineFileBytes int64
	// RPCClasses is the number of RPC connections a node keeps to each
	// other node, one per connection class (pkg/rpc/connection_class.go:
	// 36-41 @ 0cb10f369a: default and system).
	RPCClasses int
	// UpreplicateSetting and UpreplicateRate are the cluster setting and
	// default rate (bytes/s) of the snapshots that add a missing replica:
	// the replicate queue's AllocatorAdd sends at RECOVERY priority
	// (pkg/kv/kvserver/replicate_queue.go:359, 557 @ 0cb10f369a), limited
	// by kv.snapshot_recovery.max_rate, 8 MiB/s
	// (pkg/kv/kvserver/store_snapshot.go:850-852, 869-870).
	UpreplicateSetting string
	UpreplicateRate    int64
	// RebalanceSetting and RebalanceRate are those of the snapshots that
	// move a replica to where a zone config wants it (partitioning):
	// AllocatorConsiderRebalance sends at REBALANCE priority
	// (replicate_queue.go:413, 896), limited by
	// kv.snapshot_rebalance.max_rate, 8 MiB/s (store_snapshot.go:837-839,
	// 871-872).
	RebalanceSetting string
	RebalanceRate    int64
	// SnapshotsPerStore is how many replicas a store's replicate queue
	// works on at once: 1 (pkg/kv/kvserver/queue.go:439-440, the
	// replicate queue sets no maxConcurrency), so a store sends one
	// snapshot at a time.
	SnapshotsPerStore int
	// FullFraction is the fraction of a store's capacity above which the
	// allocator no longer moves replicas to it
	// (rebalanceToMaxFractionUsedThreshold, 0.925,
	// pkg/kv/kvserver/allocator_scorer.go:62 @ 0cb10f369a).
	FullFraction float64
	// StoreDeadSetting and StoreDeadAfter: a node down longer than this
	// (server.time_until_store_dead, default 5 minutes,
	// pkg/kv/kvserver/store_pool.go:65-69 @ 0cb10f369a) is declared dead
	// and its replicas are made again elsewhere: a rolling restart (the
	// binary swap) must bring each node back within it.
	StoreDeadSetting string
	StoreDeadAfter   time.Duration
}

// resources201 are v20.1's (the baseline's) figures.
var resources201 = Resources{
	NetworkFDMin: 256, NetworkFDRecommended: 5000,
	EngineFDMin: 1700, EngineFDRecommended: 10000,
	EngineFileBytes: 128 << 20, RPCClasses: 2,
	UpreplicateSetting: "kv.snapshot_recovery.max_rate", UpreplicateRate: 8 << 20,
	RebalanceSetting: "kv.snapshot_rebalance.max_rate", RebalanceRate: 8 << 20,
	SnapshotsPerStore: 1, FullFraction: 0.925,
	StoreDeadSetting: "server.time_until_store_dead", StoreDeadAfter: 5 * time.Minute,
}
