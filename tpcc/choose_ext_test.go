package tpcc_test

import (
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/profile"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// The internal tests run every profile through the composition point the
// command layer uses, on databases tpcctest loads (export_test.go).
func init() {
	tpcc.SetTestHooks(tpcc.TestHooks{Choose: profile.Choose, Install: profile.Install,
		LoadWarehouses: tpcctest.LoadWarehousesWith, CheckConsistent: tpcctest.CheckConsistent})
}
