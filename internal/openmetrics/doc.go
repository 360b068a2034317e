// Package openmetrics encodes metric families in the OpenMetrics text
// format (https://github.com/prometheus/OpenMetrics/blob/main/specification/OpenMetrics.md)
// It is the one encoder of both of benchrig's OpenMetrics outputs: a
// finished run's result (orchestrator/openmetrics, `benchrig export`) and
// the live counters and histograms `benchrig tpcc run --prometheus-port`
// serves while it runs (tpcc). Their tests check what they write with the
// Prometheus project's own parser (package omlint, test-only: it is not
// linked into the binary).
package openmetrics
