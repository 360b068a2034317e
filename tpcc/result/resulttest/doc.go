// Package resulttest holds the fixtures the tests of tpcc/result and of
// the packages above it share: a host's histogram file as a run writes
// it (WriteHostFiles), the fixed display ticks the --ticks, live-metrics
// and console goldens are written from (FixedTicks) and their file
// (WriteTicks), and the checks of
// documents against docs/schema (CheckSchema, ValidateTicks).
//
// Only tests import it. Like tpcc/result it knows no run: it imports
// neither tpcc nor crdb.
package resulttest
