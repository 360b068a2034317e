package crdb

// retiredSettings are the cluster settings a release removed, with the
// release that removed them: pkg/settings/registry.go's retiredSettings,
// whose groups are headed "removed as of X" (the version read:
// docs/fidelity/v25.4.md). SET CLUSTER SETTING of one of them fails
// with "unknown cluster setting" from that release on, so a plan naming
// one for a release at or after it is refused before anything runs. The
// table keeps the settings TPC-C recipes and tuning guides have used;
// kv.snapshot_recovery.max_rate is the one removal that is not in the
// map (PR #102596 deleted it outright, in the v23.2 cycle).
var retiredSettings = map[string]Version{
	"kv.gc.batch_size":                                           {Major: 2, Minor: 0},
	"kv.transaction.max_intents":                                 {Major: 2, Minor: 0},
	"diagnostics.reporting.report_metrics":                       {Major: 2, Minor: 0},
	"kv.allocator.stat_based_rebalancing.enabled":                {Major: 2, Minor: 1},
	"kv.allocator.stat_rebalance_threshold":                      {Major: 2, Minor: 1},
	"kv.raft_log.synchronize":                                    {Major: 19, Minor: 1},
	"schemachanger.bulk_index_backfill.enabled":                  {Major: 19, Minor: 2},
	"rocksdb.ingest_backpressure.delay_l0_file":                  {Major: 19, Minor: 2},
	"kv.bulk_io_write.addsstable_max_rate":                       {Major: 19, Minor: 2},
	"sql.defaults.optimizer":                                     {Major: 19, Minor: 2},
	"schemachanger.lease.duration":                               {Major: 20, Minor: 1},
	"schemachanger.lease.renew_fraction":                         {Major: 20, Minor: 1},
	"rocksdb.ingest_backpressure.pending_compaction_threshold":   {Major: 20, Minor: 2},
	"sql.distsql.temp_storage.joins":                             {Major: 20, Minor: 2},
	"sql.distsql.temp_storage.sorts":                             {Major: 20, Minor: 2},
	"sql.distsql.merge_joins.enabled":                            {Major: 20, Minor: 2},
	"sql.parallel_scans.enabled":                                 {Major: 20, Minor: 2},
	"kv.atomic_replication_changes.enabled":                      {Major: 21, Minor: 1},
	"sql.distsql.interleaved_joins.enabled":                      {Major: 21, Minor: 1},
	"kv.follower_read.target_multiple":                           {Major: 21, Minor: 2},
	"kv.closed_timestamp.close_fraction":                         {Major: 21, Minor: 2},
	"kv.transaction.write_pipelining_max_outstanding_size":       {Major: 21, Minor: 2},
	"sql.distsql.prefer_local_execution.enabled":                 {Major: 21, Minor: 2},
	"schemachanger.backfiller.max_sst_size":                      {Major: 22, Minor: 1},
	"schemachanger.backfiller.buffer_increment":                  {Major: 22, Minor: 1},
	"kv.bulk_ingest.buffer_increment":                            {Major: 22, Minor: 1},
	"sql.defaults.interleaved_tables.enabled":                    {Major: 22, Minor: 1},
	"bulkio.import_at_current_time.enabled":                      {Major: 22, Minor: 2},
	"sql.distsql.max_running_flows":                              {Major: 23, Minor: 1},
	"kv.snapshot_recovery.max_rate":                              {Major: 23, Minor: 2},
	"server.cpu_profile.enabled":                                 {Major: 23, Minor: 2},
	"storage.mvcc.range_tombstones.enabled":                      {Major: 24, Minor: 1},
	"kv.rangefeed.catchup_scan_concurrency":                      {Major: 24, Minor: 1},
	"storage.value_blocks.enabled":                               {Major: 24, Minor: 2},
	"kv.gc.sticky_hint.enabled":                                  {Major: 24, Minor: 2},
	"kvadmission.low_pri_read_elastic_control.enabled":           {Major: 24, Minor: 3},
	"storage.single_delete.crash_on_invariant_violation.enabled": {Major: 25, Minor: 1},
	"storage.single_delete.crash_on_ineffectual.enabled":         {Major: 25, Minor: 1},
	"kv.bulkio.write_metadata_sst.enabled":                       {Major: 25, Minor: 1},
	"bulkio.backup.merge_file_buffer_size":                       {Major: 25, Minor: 2},
	"sql.catalog.experimental_use_session_based_leasing":         {Major: 25, Minor: 2},
}

// RetiredIn says which release removed cluster setting name; ok is false
// for a setting no release in the table removed.
func RetiredIn(name string) (v Version, ok bool) {
	v, ok = retiredSettings[name]
	return v, ok
}
