// Package gate decides whether a run's result meets its thresholds, for
// CI: a minimum tpmC and efficiency, latency limits per transaction and
// percentile, a maximum error count, and a maximum regression against a
// baseline run. Thresholds is plain data with YAML and JSON tags so that a
// plan can carry it (like k6's thresholds); `benchrig check-result` fills
// it from flags.
package gate
