package crdb

import "fmt"

// PartitionStrategy is how CockroachDB places a warehouse partition
// (--partition-strategy, as in CockroachDB's workload).
type PartitionStrategy int

const (
	// Replication pins all replicas of partition i to rack i (or zone i).
	Replication PartitionStrategy = iota
	// Leases pins one replica and the leaseholder of partition i to rack i
	// and lets the other replicas spread for survivability.
	Leases
)

// ParsePartitionStrategy parses "replication" or "leases".
func ParsePartitionStrategy(s string) (PartitionStrategy, error) {
	switch s {
	case "replication", "":
		return Replication, nil
	case "leases":
		return Leases, nil
	}
	return 0, fmt.Errorf("unknown partition strategy %q (want replication or leases)", s)
}

func (s PartitionStrategy) String() string {
	if s == Leases {
		return "leases"
	}
	return "replication"
}
