// Package faults runs benchrig end to end on package e2e's lab with faults
// made to order while the orchestrator runs as a separate process: every
// host behind a fault proxy (sshtest.WithProxies) where a test needs one,
// sshd and jobs killed, links reset, slowed and black-holed, the
// orchestrator SIGKILLed and resumed, and hosts that answer with hostile
// data. It has only tests, each starting with t.Parallel() on a lab of
// its own: package e2e's doc says why that is safe and how a new test
// file follows the pattern.
package faults
