package orchestrator

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// TestSearchNext: bisection finds the threshold of a monotone pass/fail
// in about log2(range) iterations, and stops at the resolution.
func TestSearchNext(t *testing.T) {
	for _, tt := range []struct {
		min, max, res, threshold int // values <= threshold pass
		want, maxTries           int
	}{
		{1, 100, 1, 37, 37, 7},
		{1, 100, 1, 100, 100, 7},
		{1, 100, 1, 0, 0, 7},
		{1, 1, 1, 1, 1, 1},
		{100, 10000, 100, 4321, 4321, 7}, // within the resolution
	} {
		s := &searchStage{Search: Search{Min: tt.min, Max: tt.max, Resolution: tt.res}}
		var points []SearchPoint
		for {
			v, more := s.next(points)
			if !more {
				break
			}
			if v < tt.min || v > tt.max {
				t.Fatalf("%+v: tried %d outside the bounds", tt, v)
			}
			points = append(points, SearchPoint{Value: v, Pass: v <= tt.threshold})
			if len(points) > 40 {
				t.Fatalf("%+v: no end: %v", tt, points)
			}
		}
		got := bestPassing(points)
		if got > tt.want || tt.want-got >= max(1, tt.res) || len(points) > tt.maxTries {
			t.Errorf("%+v: best %d after %d tries %v", tt, got, len(points), points)
		}
	}
}

// TestSearchDryRun: the dry-run lists the iterations a search takes when
// every one passes, each with its run, downloads and check.
func TestSearchDryRun(t *testing.T) {
	plan := strings.Replace(string(mustRead(t, "../plans/local.yaml")), "  duration: 1m\n", "  duration: 1m\n  search: {min: 1, max: 2}\n", 1)
	p, err := ParsePlan("../plans/local.yaml", []byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	stages, err := Compile(p, Options{Only: []string{"run"}, DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &Runner{Exec: remote.NewRecorder(), Out: &out, Listing: true, Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := r.Run(context.Background(), stages); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"search: trying --active-warehouses=2",
		"--active-warehouses 2 --partition-affinity 0",
		"get benchrig-local/load1/workload1.search-2.histogram.ndjson",
		"benchrig tpcc merge --check --warehouses 2 --json results/merged.search-2.result.json results/load1/workload1.search-2.histogram.ndjson",
		"search: the largest passing --active-warehouses is 2",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry-run lacks %q:\n%s", want, out.String())
		}
	}
}
