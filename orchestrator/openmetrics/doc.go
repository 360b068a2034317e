// Package openmetrics writes a run's final result in the OpenMetrics text
// format (https://github.com/prometheus/OpenMetrics/blob/main/specification/OpenMetrics.md),
// for Prometheus users: push it to a Pushgateway or serve it to a scrape.
// Latencies are in seconds and efficiency is a ratio, as Prometheus's
// naming conventions ask; every sample carries the plan, the run and the
// round (repeat or sweep point) as labels. No timestamps are written: a
// Pushgateway rejects them, and the run's time is in benchrig_run_info.
package openmetrics
