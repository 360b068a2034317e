package tpcc

import (
	"fmt"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/runspec"
)

func TestRunNeeds(t *testing.T) {
	perConn := WaitTerminalsPerConn
	for _, tc := range []struct {
		name string
		cfg  RunConfig
		want HostNeeds
		err  bool
	}{
		{"100k recipe host: 20,000 warehouses paced", RunConfig{Warehouses: 20000, Wait: 1},
			HostNeeds{Terminals: 200000, Conns: 200000 / perConn, OpenFiles: 200000/perConn + fdReserve}, false},
		{"explicit --conns over 3 URLs rounds up per URL", RunConfig{URLs: []string{"a", "b", "c"}, Warehouses: 10, Wait: 1, Conns: 10},
			HostNeeds{Terminals: 100, Conns: 12, OpenFiles: 12 + fdReserve}, false},
		{"no wait: one connection per worker", RunConfig{Warehouses: 4, Workers: 8},
			HostNeeds{Terminals: 8, Conns: 8, OpenFiles: 8 + fdReserve}, false},
		{"affinity: this host's partition only", RunConfig{Warehouses: 100, Partitions: 4, Affinity: []int{1}, Wait: 1},
			HostNeeds{Terminals: 250, Conns: (250 + perConn - 1) / perConn, OpenFiles: (250+perConn-1)/perConn + fdReserve}, false},
		{"active warehouses", RunConfig{Warehouses: 100, ActiveWarehouses: 30, Wait: 1, Duration: time.Minute},
			HostNeeds{Terminals: 300, Conns: (300 + perConn - 1) / perConn, OpenFiles: (300+perConn-1)/perConn + fdReserve}, false},
		{"no warehouses", RunConfig{Warehouses: 0}, HostNeeds{}, true},
		{"affinity out of range", RunConfig{Warehouses: 10, Partitions: 2, Affinity: []int{2}}, HostNeeds{}, true},
		{"--workers with --wait", RunConfig{Warehouses: 10, Wait: 1, Workers: 7}, HostNeeds{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RunNeeds(chosen(tc.cfg))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("RunNeeds = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestRunNeedsAgreesWithCheck: a plan's validation asks runspec.Check, the
// run stage the driver (RunNeeds, Run); both refuse the same shapes with
// the same message, so a plan validation passes is one the driver runs.
func TestRunNeedsAgreesWithCheck(t *testing.T) {
	for _, r := range []runspec.Run{
		{Warehouses: 10, Wait: 1},
		{Warehouses: 10, Active: 4, Partitions: 2, Wait: 1},
		{Warehouses: 10, Partitions: 2, Affinity: []int{2}, Wait: 1},
		{Warehouses: 10, Partitions: 2, Affinity: []int{-1}},
		{Warehouses: 10, Wait: 1, Workers: 7},
		{Warehouses: 10, Wait: 1, Workers: 100},
		{Warehouses: 10, Workers: 7},
		{Warehouses: 10, Workers: -1},
		{Warehouses: 10, Conns: -1},
		{Warehouses: 10, Partitions: 11},
		{Warehouses: 10, Active: 11},
		{Warehouses: 4, Active: 2, Partitions: 4, Affinity: []int{1}, Wait: 1},
		{Warehouses: 10, Wait: 1, Duration: -time.Second},
		{Warehouses: 10, Wait: 1, Duration: time.Minute},
	} {
		cfg := RunConfig{URLs: []string{""}, Warehouses: r.Warehouses, ActiveWarehouses: r.Active, Partitions: r.Partitions,
			Affinity: r.Affinity, Workers: r.Workers, Conns: r.Conns, Wait: r.Wait, Duration: r.Duration}
		_, needsErr := RunNeeds(chosen(cfg))
		checkErr := runspec.Check(r)
		if fmt.Sprint(needsErr) != fmt.Sprint(checkErr) {
			t.Errorf("%+v: RunNeeds says %v, runspec.Check %v", r, needsErr, checkErr)
		}
	}
}
