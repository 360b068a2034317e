// Package omlint checks an OpenMetrics exposition for tests: it parses it
// with the Prometheus project's own OpenMetrics 1.0 parser
// (github.com/prometheus/common/expfmt) and adds the rules benchrig's
// writer keeps that the parser leaves open. It is a package of its own,
// imported only by tests, because expfmt (with its protobuf data model
// and ABNF grammar) would add 2.5 MB to the benchrig binary that is
// uploaded to every host if the encoder's package imported it.
package omlint
