// Package openmetrics encodes metric families in the OpenMetrics text
// format (https://github.com/prometheus/OpenMetrics/blob/main/specification/OpenMetrics.md)
// and checks an exposition against the format's rules. It is the one
// encoder of both of benchrig's OpenMetrics outputs: a finished run's
// result (orchestrator/openmetrics, `benchrig export`) and the live
// counters and histograms `benchrig tpcc run --prometheus-port` serves
// while it runs (tpcc). Lint is exported so that the tests of both check
// what they write with the same rules.
package openmetrics
