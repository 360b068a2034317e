// Package pgdb owns what both benchmarks (tpcc and crud) do to a
// PostgreSQL-protocol server before their own work: create the database
// a URL names. It knows neither benchmark nor any CockroachDB release.
package pgdb
