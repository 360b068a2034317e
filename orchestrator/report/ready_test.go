package report

import (
	"strings"
	"testing"
	"time"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestReportShowsReadyBarrier: hosts that started from the ready barrier
// have their ready instants in the report, how far apart their warm-ups
// ended, and the common start instant; the Markdown says each host's
// wait.
func TestReportShowsReadyBarrier(t *testing.T) {
	start := time.Date(2026, 12, 2, 12, 30, 0, 0, time.UTC)
	var hosts []hostRun
	for k, warm := range []time.Duration{95 * time.Second, 12500 * time.Millisecond} {
		delay := float64(k) + 0.25
		ready := start.Add(-warm)
		hosts = append(hosts, hostRun{host: []string{"load1", "load2"}[k], res: &result.Result{Header: envelope.New(result.KindRun),
			StartAt: &start, StartDelayMs: &delay, ReadyAt: &ready}})
	}
	r := &Report{}
	r.hostFindings(hosts)
	s := r.StartSkew
	if s == nil || s.ReadySpread != 82500 || s.StartAt == nil || !s.StartAt.Equal(start) || len(s.ReadyAt) != 2 || s.Spread != 1 {
		t.Fatalf("skew %+v, want the warm-ups 82.5 s apart, the start at %s, a 1 ms start spread", s, start)
	}
	md := Markdown(r, nil)
	for _, want := range []string{
		"Workload hosts started the measured run 1.000 ms apart",
		"their warm-ups ended 82.500 s apart, and the common start instant 2026-12-02T12:30:00Z was fixed after the last",
		"- load1: ready 95.000 s before the start",
		"- load2: ready 12.500 s before the start",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
