// Package e2e runs the benchrig command end to end on a lab of real
// OpenSSH sshd on loopback, as plans/local.yaml's topology: three
// PostgreSQL nodes (127.0.0.2-4) and two workload hosts, the benchrig
// binary uploaded to the workload hosts, and the orchestrator as a
// separate process so that it can be SIGKILLed. Its own tests run whole
// plans; e2e/faults runs the same topology with faults made to order.
// The tests are two packages so that `go test ./...` runs the two halves
// side by side: one package of them took most of CI's time limit.
package e2e
