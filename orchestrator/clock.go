package orchestrator

import (
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/orchestrator/report"
	"github.com/benchrig/benchrig/orchestrator/runner"
)

// clockProbes is the observer that collects the "read clock" probes into
// clock.json: each host's clock minus the midpoint of send and receive.
type clockProbes struct {
	path string
	list []report.ClockOffset
}

func (c *clockProbes) Observe(e runner.Event) error {
	if e.Kind != runner.StepDone || e.Step.Probe != "clock" {
		return nil
	}
	received := e.Received
	secs, err := strconv.ParseFloat(strings.TrimSpace(string(e.Result.Stdout)), 64)
	if err != nil {
		return nil
	}
	mid := e.Sent.Add(received.Sub(e.Sent) / 2)
	host := time.Unix(0, int64(secs*1e9))
	c.list = append(c.list, report.ClockOffset{
		Host:     e.Host,
		OffsetMs: float64(host.Sub(mid)) / float64(time.Millisecond),
		RTTMs:    float64(received.Sub(e.Sent)) / float64(time.Millisecond),
	})
	sort.Slice(c.list, func(i, j int) bool { return c.list[i].Host < c.list[j].Host })
	if data, err := json.MarshalIndent(c.list, "", "  "); err == nil {
		_ = os.WriteFile(c.path, data, 0o644)
	}
	return nil
}
