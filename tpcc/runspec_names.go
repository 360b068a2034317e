package tpcc

import "github.com/benchrig/benchrig/tpcc/runspec"

// The run's shape as data lives in tpcc/runspec, a leaf that the plan's
// validation imports instead of the driver; the benchmark keeps using the
// names it always had.
type (
	Profile    = runspec.Profile
	Partitions = runspec.Partitions
)

const (
	ProfilePipelined = runspec.ProfilePipelined
	ProfileWorkload  = runspec.ProfileWorkload
	ProfileFunctions = runspec.ProfileFunctions
)

var (
	Profiles      = runspec.Profiles
	ParseProfile  = runspec.ParseProfile
	ParseWait     = runspec.ParseWait
	NewPartitions = runspec.NewPartitions
)
