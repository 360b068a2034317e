package main

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/tpcc/runspec"
)

// TestPlanSetFlagsMatchTable: the flags a plan's tpcc.extra_flags may not
// give (runspec.PlanSetFlags, checked at validation) are flags of `tpcc
// run`, and every flag of `tpcc run` that takes a file is among them, so
// that a new output flag cannot be pointed anywhere on the hosts by a
// plan.
func TestPlanSetFlagsMatchTable(t *testing.T) {
	run := tpccRun()
	names := map[string]bool{}
	for _, f := range run.Flags {
		for _, n := range f.Names() {
			names[n] = true
		}
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
		}
		if strings.Contains(usage, "`FILE`") || strings.Contains(usage, "`DIR`") || strings.Contains(usage, "`PATH`") {
			for _, n := range f.Names() {
				if runspec.PlanSetFlags[n] == "" {
					t.Errorf("--%s names a file but is not in runspec.PlanSetFlags: a plan's extra_flags could point it anywhere", n)
				}
			}
		}
	}
	for n := range runspec.PlanSetFlags {
		if !names[n] {
			t.Errorf("runspec.PlanSetFlags lists --%s, which tpcc run does not have", n)
		}
	}
}
