package tpcc_test

import (
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/profile"
)

// The internal tests run every profile through the composition point the
// command layer uses (export_test.go).
func init() { tpcc.SetChooseForTests(profile.Choose) }
