package orchestrator

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// BenchmarkDryRun100k measures what `benchrig run --dry-run
// plans/tpcc-100k.yaml` does: load and validate the 86-host plan,
// compile it, and list every step through the recording executor.
func BenchmarkDryRun100k(b *testing.B) {
	withLicense(b)
	for b.Loop() {
		p, err := LoadPlan("../plans/tpcc-100k.yaml")
		if err != nil {
			b.Fatal(err)
		}
		stages, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		r := &Runner{Exec: remote.NewRecorder(), Out: &out, Listing: true, Limit: p.SSH.Concurrency,
			Sleep: func(context.Context, time.Duration) error { return nil }}
		if err := r.Run(context.Background(), stages); err != nil {
			b.Fatal(err)
		}
	}
}
